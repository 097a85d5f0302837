import { DomainError } from '@trustpoint/domain';
import type { Request, Response } from 'express';

/** The longest a request may ask to wait for its record (`Prefer: wait=N`), in seconds. */
export const MAX_PREFERRED_WAIT_SECONDS = 600;

/**
 * How a request that creates a record to anchor is answered:
 * - `waitMs`: how long the request waits for its record to be anchored (0: not at all; undefined:
 *   the anchoring engine's own anchor timeout);
 * - `onTimeout`: when the wait ends first, `accept` answers 202 with the pending record, which
 *   stays queued; `withdraw` takes the record back with its credit and answers 503 (synchronous
 *   mode), unless its batch was already sent: then it will be anchored, and the answer is 202.
 */
export interface Acknowledgement {
  waitMs: number | undefined;
  onTimeout: 'accept' | 'withdraw';
}

/** The synchronous mode with the anchoring engine's anchor timeout: what applies by default. */
export const SYNCHRONOUS_ACKNOWLEDGEMENT: Acknowledgement = {
  waitMs: undefined,
  onTimeout: 'withdraw',
};

/**
 * What a network does when a request states no preference: the networks file's fields of the
 * same names, so a network's configuration is passed as it is (none: synchronous).
 */
export interface AcknowledgementDefaults {
  acknowledgement?: 'sync' | 'async' | undefined;
  /** The synchronous wait; by default the anchoring engine's anchor timeout. */
  anchorTimeoutMs?: number | undefined;
}

interface Preferences {
  respondAsync: boolean;
  waitSeconds: number | undefined;
}

/** The `respond-async` and `wait` preferences of RFC 7240 (others are ignored, as it allows). */
export function parsePrefer(header: string | string[] | undefined): Preferences {
  const preferences: Preferences = { respondAsync: false, waitSeconds: undefined };
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  for (const value of values) {
    for (const preference of value.split(',')) {
      // A preference is `token [= value] *(; parameter)`; parameters do not matter here.
      const [nameAndValue = ''] = preference.split(';');
      const [rawName = '', rawValue] = nameAndValue.split('=', 2);
      const name = rawName.trim().toLowerCase();
      const text = rawValue?.trim().replace(/^"(.*)"$/, '$1');
      if (name === 'respond-async') preferences.respondAsync = true;
      // The first occurrence of a preference wins (RFC 7240 section 2); a bad value is ignored.
      if (
        name === 'wait' &&
        preferences.waitSeconds === undefined &&
        /^\d{1,9}$/.test(text ?? '')
      ) {
        preferences.waitSeconds = Number(text);
      }
    }
  }
  return preferences;
}

/** How to acknowledge this request: its `Prefer` header, else its network's defaults. */
export function acknowledgementFor(
  req: Request,
  defaults: AcknowledgementDefaults = {},
): Acknowledgement {
  const { respondAsync, waitSeconds } = parsePrefer(req.headers.prefer);
  const preferredWaitMs =
    waitSeconds === undefined
      ? undefined
      : Math.min(waitSeconds, MAX_PREFERRED_WAIT_SECONDS) * 1_000;
  if (respondAsync) return { waitMs: preferredWaitMs ?? 0, onTimeout: 'accept' };
  if (preferredWaitMs !== undefined) return { waitMs: preferredWaitMs, onTimeout: 'withdraw' };
  return defaults.acknowledgement === 'async'
    ? { waitMs: 0, onTimeout: 'accept' }
    : { waitMs: defaults.anchorTimeoutMs, onTimeout: 'withdraw' };
}

/**
 * Answers a creation: 201 once anchored; 202 while pending, with `Location` (where to read the
 * record's status) and, when the client asked for it, `Preference-Applied: respond-async`.
 */
export function acknowledge(
  req: Request,
  res: Response,
  outcome: { anchored: boolean; location: string },
): 201 | 202 {
  // Whether the answer comes at once or after the wait depends on the request's Prefer header.
  res.vary('Prefer');
  if (outcome.anchored) return 201;
  res.location(outcome.location);
  if (parsePrefer(req.headers.prefer).respondAsync) {
    res.setHeader('Preference-Applied', 'respond-async');
  }
  return 202;
}

/** What came of waiting: the receipts once anchored, or nothing while the records are pending. */
export type AnchorWait<Receipt> = { anchored: true; receipts: Receipt[] } | { anchored: false };

/**
 * Waits for a request's records as `acknowledgement` says. A timeout (or a network not ready)
 * ends in `{anchored: false}` when the request accepts a pending answer; otherwise the records are
 * withdrawn (`withdraw`: all or none, false when a batch already took one) and the error stands,
 * unless they could not be withdrawn: then they will be anchored, and the answer must not claim a
 * failure (a retry would meet its own record as a repeat), so it is `{anchored: false}` too.
 */
export async function awaitAcknowledgement<Receipt>(input: {
  acknowledgement: Acknowledgement;
  recordIds: readonly number[];
  wait: (recordId: number, timeoutMs: number | undefined) => Promise<Receipt>;
  withdraw: () => Promise<boolean>;
}): Promise<AnchorWait<Receipt>> {
  const { acknowledgement, recordIds } = input;
  if (acknowledgement.waitMs !== undefined && acknowledgement.waitMs <= 0) {
    return { anchored: false };
  }
  try {
    const receipts = await Promise.all(
      recordIds.map((recordId) => input.wait(recordId, acknowledgement.waitMs)),
    );
    return { anchored: true, receipts };
  } catch (error) {
    const unavailable = error instanceof DomainError && error.code === 'networkUnavailable';
    if (unavailable && acknowledgement.onTimeout === 'accept') return { anchored: false };
    if (await input.withdraw()) throw error;
    if (unavailable) return { anchored: false };
    throw error;
  }
}
