import type { Acknowledgement } from '@trustpoint/domain';
import type { Request, Response } from 'express';

/** The longest a request may ask to wait for its record (`Prefer: wait=N`), in seconds. */
export const MAX_PREFERRED_WAIT_SECONDS = 600;

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
