/**
 * How a request that creates a record to anchor is answered (the HTTP side reads it from the
 * `Prefer` header; the anchoring engine waits as it says):
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

/** What came of waiting: the receipts once anchored, or nothing while the records are pending. */
export type AnchorWait<Receipt> = { anchored: true; receipts: Receipt[] } | { anchored: false };
