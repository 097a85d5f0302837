import { z } from 'zod';

/**
 * Where a record stands on chain: `pending` from its acknowledgement until its transaction is
 * mined with the network's confirmations, then `anchored`; `failed` when it can never be anchored
 * (its credit is returned and `failure` says why).
 */
export const anchoringStatusSchema = z.enum(['pending', 'anchored', 'failed']).meta({
  id: 'AnchoringStatus',
  description:
    'pending: accepted and queued, not yet on chain (no transactionHash); anchored: mined with ' +
    "the network's confirmations and verifiable; failed: can never be anchored (see failure)",
});
export type AnchoringStatus = z.infer<typeof anchoringStatusSchema>;

/** Of a certificate or an asset, the least settled of its records: failed, else pending, else anchored. */
export function overallAnchoringStatus(statuses: readonly AnchoringStatus[]): AnchoringStatus {
  if (statuses.includes('failed')) return 'failed';
  if (statuses.includes('pending')) return 'pending';
  return 'anchored';
}
