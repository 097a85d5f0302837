import { DomainError, type Acknowledgement, type AnchorWait } from '@trustpoint/domain';
import type { AnchorReceipt } from './anchor-record.js';

/** What the wait needs of the anchoring engine. */
export interface AnchorWaiter {
  waitForAnchor(recordId: number, timeoutMs?: number): Promise<AnchorReceipt>;
}

/**
 * The one way a creation waits for its records: as `acknowledgement` says. A timeout (or a
 * network not ready) ends in `{anchored: false}` when the request accepts a pending answer;
 * otherwise the records are withdrawn (`withdraw`, the use case's own transaction: all or none,
 * false when a batch already took one) and the error stands, unless they could not be withdrawn:
 * then they will be anchored, and the answer must not claim a failure (a retry would meet its own
 * record as a repeat), so it is `{anchored: false}` too.
 */
export async function awaitAcknowledgement(
  engine: AnchorWaiter,
  input: {
    acknowledgement: Acknowledgement;
    recordIds: readonly number[];
    withdraw: () => Promise<boolean>;
  },
): Promise<AnchorWait<AnchorReceipt>> {
  const { acknowledgement, recordIds } = input;
  if (acknowledgement.waitMs !== undefined && acknowledgement.waitMs <= 0) {
    return { anchored: false };
  }
  try {
    const receipts = await Promise.all(
      recordIds.map((recordId) => engine.waitForAnchor(recordId, acknowledgement.waitMs)),
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
