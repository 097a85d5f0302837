/**
 * Whether a network can take new records now. `notReady`: the registrar's balance does not cover
 * the next batch at current fees (gas limit x max fee per gas), so new records would only wait;
 * requests to it fail fast with `networkUnavailable` (503) and records already queued stay queued
 * until the registrar is funded again. `unknown`: not checked yet (or checked by no anchorer in
 * this process); treated as ready.
 */
export type NetworkHealthState = 'unknown' | 'ready' | 'notReady';

export interface NetworkHealth {
  networkId: string;
  state: NetworkHealthState;
  /** Why the network is not ready, for logs and for operators. */
  reason?: string;
  /** The registrar's balance and what the next batch needs, in wei (decimal strings). */
  balanceWei?: string;
  requiredWei?: string;
  checkedAt?: Date;
}

export const unknownHealth = (networkId: string): NetworkHealth => ({
  networkId,
  state: 'unknown',
});
