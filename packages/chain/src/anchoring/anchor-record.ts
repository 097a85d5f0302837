// What the engine anchors is what the anchoring queue holds: one definition, in the database's
// package (`@trustpoint/db`), passed on here for the APIs that hand records over.
export { RECORD_KINDS } from '@trustpoint/db';
export type { AnchorRequest, AnchorStatus, QueuedRecord, RecordKind } from '@trustpoint/db';

/** Where an anchored record is on chain: what a certificate's metadata item reports. */
export interface AnchorReceipt {
  recordId: number;
  networkId: string;
  smartContract: string;
  transactionHash: string;
  blockNumber: number;
  /** When the batch was settled: the `anchored_at` the record's trustpoint or evidence now holds. */
  anchoredAt: Date;
}

/** What the anchorer that settled a record tells (a look at the record's state tells less). */
export interface SettledReceipt extends AnchorReceipt {
  /** When the record was queued. */
  queuedAt: Date;
}
