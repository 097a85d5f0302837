import type { Queryable } from '../queryable.js';

/** Records of one network waiting in one state, and how long the oldest has waited. */
export interface AnchorQueueDepth {
  networkId: string;
  /** `queued`: in no batch yet; `batched`: in a signed batch not yet settled. */
  state: 'queued' | 'batched';
  count: number;
  /** Since the oldest of them was queued; never negative. */
  oldestAgeSeconds: number;
}

/**
 * The records not yet anchored, per network and state: queued records, and the records of signed
 * (unsettled) batches. Both read through partial indexes; networks with none are left out.
 */
export async function readAnchorQueueDepth(db: Queryable): Promise<AnchorQueueDepth[]> {
  type Row = { network_id: string; count: string | number; oldest: string | number | null };
  const [queued, batched] = await Promise.all([
    db('anchor_records')
      .where('status', 'queued')
      .groupBy('network_id')
      .select<Row[]>(
        'network_id',
        db.raw('count(*) as count'),
        db.raw('extract(epoch from now() - min(created_at)) as oldest'),
      ),
    db('anchor_batches as b')
      .join('anchor_records as r', 'r.batch_id', 'b.id')
      .where('b.status', 'signed')
      .groupBy('b.network_id')
      .select<Row[]>(
        'b.network_id',
        db.raw('count(*) as count'),
        db.raw('extract(epoch from now() - min(r.created_at)) as oldest'),
      ),
  ]);
  const depths = (state: AnchorQueueDepth['state'], list: Row[]): AnchorQueueDepth[] =>
    list.map((row) => ({
      networkId: row.network_id,
      state,
      count: Number(row.count),
      oldestAgeSeconds: Math.max(0, Number(row.oldest ?? 0)),
    }));
  return [...depths('queued', queued), ...depths('batched', batched)];
}

/**
 * The records of one network pending anchoring (queued, or in a signed batch not yet settled),
 * counted up to `atMost`: a bounded read for the queue limit, however long the queue has grown.
 * Queued records are read through their partial index, batched ones through the signed batches.
 */
export async function countPendingAnchorRecords(
  db: Queryable,
  networkId: string,
  atMost: number,
): Promise<number> {
  const limit = Math.max(0, Math.floor(atMost));
  const queued = db('anchor_records')
    .where({ network_id: networkId, status: 'queued' })
    .select(db.raw('1'))
    .limit(limit);
  const batched = db('anchor_batches as b')
    .join('anchor_records as r', 'r.batch_id', 'b.id')
    .where({ 'b.network_id': networkId, 'b.status': 'signed', 'r.status': 'batched' })
    .select(db.raw('1'))
    .limit(limit);
  const [row] = await db
    .from(db.unionAll([queued, batched], true).limit(limit).as('pending'))
    .count<{ count: string | number }[]>({ count: '*' });
  return Number(row?.count ?? 0);
}
