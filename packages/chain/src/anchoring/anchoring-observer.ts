import type { SettledReceipt } from './anchor-record.js';
import type { NetworkHealth } from './network-health.js';

/**
 * Told of what this process's anchoring settles (here or in its anchoring thread), once each:
 * for metrics. Records another process anchored are not reported here, so counts summed over
 * processes count each record once. Also told when the anchorers are woken (an anchoring thread
 * is woken so) and when records queued here were committed. Observers must not throw or block.
 */
export interface AnchoringObserver {
  /** One call per settled batch: its records, all with the batch's transaction. */
  anchored?(receipts: readonly SettledReceipt[]): void;
  failed?(records: readonly FailedRecord[]): void;
  health?(health: NetworkHealth): void;
  /**
   * The anchorers are asked to look at the queue (`engine.wake()`: records queued here were
   * committed, or another process said it queued some): an anchoring thread looks now.
   */
  queued?(): void;
  /**
   * A transaction of this process that queued records committed: other processes may be told
   * (`anchoringAnnouncer` of `@trustpoint/db`).
   */
  committedHere?(): void;
}

/** A record that can never be anchored, and why (the registry refused it, or it was withdrawn). */
export interface FailedRecord {
  recordId: number;
  reason: string;
}
