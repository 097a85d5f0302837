import type { AnchorReceipt } from './anchor-record.js';
import type { NetworkHealth } from './network-health.js';

/**
 * Told of what this process's anchoring settles (here or in its anchoring thread), once each:
 * for metrics. Records another process anchored are not reported here, so counts summed over
 * processes count each record once. Also told when records queued here were committed (an
 * anchoring thread is woken so). Observers must not throw or block.
 */
export interface AnchoringObserver {
  /** One call per settled batch: its records, all with the batch's transaction. */
  anchored?(receipts: readonly AnchorReceipt[]): void;
  failed?(records: readonly FailedRecord[]): void;
  health?(health: NetworkHealth): void;
  /** Records were queued in this process and committed: anchorers elsewhere may look now. */
  queued?(): void;
}

/** A record that can never be anchored, and why (the registry refused it, or it was withdrawn). */
export interface FailedRecord {
  recordId: number;
  reason: string;
}
