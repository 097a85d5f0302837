import type { AnchoringStatus } from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { Queryable } from '../queryable.js';

/** What a trustpoint or evidence row holds about its anchoring. */
interface Anchorable {
  transactionHash: string | null;
  anchorRecordId: number | null;
  status: AnchoringStatus;
  failure?: string;
}

/**
 * The items, read as `pending` or `anchored` from their own rows, with those whose queue record
 * the anchoring engine gave up marked `failed` and why. Only unanchored items are looked up, in one
 * query and only when there are any, so pages of anchored records cost nothing more.
 */
export async function withAnchoringStates<Item extends Anchorable>(
  db: Queryable,
  items: Item[],
): Promise<Item[]> {
  const unsettled = items.flatMap((item) =>
    item.transactionHash === null && item.anchorRecordId !== null ? [item.anchorRecordId] : [],
  );
  if (unsettled.length === 0) return items;
  const rows = await db('anchor_records')
    .whereIn('id', unsettled)
    .andWhere('status', 'failed')
    .select<{ id: number; error: string | null }[]>('id', 'error');
  if (rows.length === 0) return items;
  const failures = new Map(rows.map((row) => [row.id, row.error ?? 'refused by the registry']));
  return items.map((item) => {
    const failure = item.anchorRecordId === null ? undefined : failures.get(item.anchorRecordId);
    return failure === undefined ? item : { ...item, status: 'failed', failure };
  });
}

/** Where the records of a certificate or an asset live, for `whereAnchoringStatus`. */
export interface AnchoredRecords {
  table: 'trustpoints' | 'evidences';
  /** The records' column naming their certificate or asset. */
  ownerColumn: 'certificate_id' | 'asset';
  /** The outer query's column it matches, e.g. `certificates.id`. */
  ownerId: string;
}

/**
 * Restricts a query of certificates or assets to those in `status`, as `Certificate.status` and
 * `Asset.status` define it: anchored when every record has its transaction, failed when one of
 * them failed, pending otherwise. Unanchored records are few and found through a partial index
 * (`trustpoints_unanchored_idx`, `evidences_unanchored_idx`).
 */
export function whereAnchoringStatus(
  query: Knex.QueryBuilder,
  status: AnchoringStatus,
  records: AnchoredRecords,
): Knex.QueryBuilder {
  function unanchored(this: Knex.QueryBuilder): void {
    this.select(1)
      .from({ u: records.table })
      .whereRaw('?? = ??', [`u.${records.ownerColumn}`, records.ownerId])
      .whereNull('u.transaction_hash');
  }
  function failed(this: Knex.QueryBuilder): void {
    unanchored.call(this);
    this.join({ r: 'anchor_records' }, 'r.id', 'u.anchor_record_id').where('r.status', 'failed');
  }
  if (status === 'anchored') return query.whereNotExists(unanchored);
  if (status === 'failed') return query.whereExists(failed);
  return query.whereExists(unanchored).whereNotExists(failed);
}
