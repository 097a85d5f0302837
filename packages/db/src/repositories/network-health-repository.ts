import type { Queryable } from '../queryable.js';

/**
 * What an anchoring process last found of a network's registrar: whether it can pay for the next
 * batch at current fees (`notReady` says why), shared with the processes that only enqueue.
 */
export interface RecordedNetworkHealth {
  networkId: string;
  state: 'ready' | 'notReady';
  reason?: string;
  balanceWei?: string;
  requiredWei?: string;
  checkedAt: Date;
}

interface NetworkHealthRow {
  network_id: string;
  state: 'ready' | 'notReady';
  reason: string | null;
  balance_wei: string | null;
  required_wei: string | null;
  checked_at: Date | string;
}

/** Writes what an anchorer found of a network's registrar into `network_health` (one upsert). */
export async function recordNetworkHealth(
  db: Queryable,
  health: Omit<RecordedNetworkHealth, 'checkedAt'> & { checkedAt?: Date | undefined },
): Promise<void> {
  await db('network_health')
    .insert({
      network_id: health.networkId,
      state: health.state,
      reason: health.reason ?? null,
      balance_wei: health.balanceWei ?? null,
      required_wei: health.requiredWei ?? null,
      checked_at: health.checkedAt ?? new Date(),
    })
    .onConflict('network_id')
    .merge();
}

/** What the anchoring processes last recorded for each network. */
export async function readNetworkHealth(db: Queryable): Promise<RecordedNetworkHealth[]> {
  const rows = await db('network_health').select<NetworkHealthRow[]>('*');
  return rows.map((row) => ({
    networkId: row.network_id,
    state: row.state,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.balance_wei === null ? {} : { balanceWei: row.balance_wei }),
    ...(row.required_wei === null ? {} : { requiredWei: row.required_wei }),
    checkedAt: new Date(row.checked_at),
  }));
}
