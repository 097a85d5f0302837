import type { Queryable } from '../queryable.js';
import type { AnchorRequest, AnchorStatus, RecordKind } from './anchor-record.js';

/**
 * The enqueue side of the anchoring outbox: records enter inside the caller's transaction (the
 * one that stores the certificate or evidence they anchor), and the caller reads how they stand.
 * The anchorer side is `anchor-batches-repository.ts`.
 */

/** The queue row of a record to anchor. */
export function anchorRecordRow(request: AnchorRequest) {
  return {
    network_id: request.networkId,
    kind: request.kind,
    record_key: request.recordKey.toLowerCase(),
    hash: request.hash,
    trustpoint_type: request.kind === 'trustpoint' ? (request.trustPointType ?? 0) : null,
    paid_by: request.paidBy ?? null,
    record_timestamp: request.timestamp,
  };
}

/** Queues a record in the caller's transaction; returns its id, to wait on. */
export async function enqueueAnchorRecord(trx: Queryable, request: AnchorRequest): Promise<number> {
  const [row] = await trx('anchor_records')
    .insert(anchorRecordRow(request))
    .returning<{ id: number }[]>('id');
  if (!row) throw new Error('anchor record insert returned nothing');
  return row.id;
}

/**
 * Queues several records in one statement, in the caller's transaction; returns their ids in the
 * order given.
 */
export async function enqueueAnchorRecords(
  trx: Queryable,
  requests: readonly AnchorRequest[],
): Promise<number[]> {
  if (requests.length === 0) return [];
  const rows = requests.map(anchorRecordRow);
  const inserted = await trx('anchor_records')
    .insert(rows)
    .returning<{ id: number; network_id: string; kind: string; record_key: string }[]>([
      'id',
      'network_id',
      'kind',
      'record_key',
    ]);
  // A record is unique by (network, kind, key): match the ids up by it, not by position.
  const ids = new Map(
    inserted.map((row) => [`${row.network_id}\n${row.kind}\n${row.record_key}`, row.id]),
  );
  return rows.map((row) => {
    const id = ids.get(`${row.network_id}\n${row.kind}\n${row.record_key}`);
    if (id === undefined) throw new Error(`anchor record ${row.record_key} was not inserted`);
    return id;
  });
}

/**
 * Queues records that may be queued already (a certificate's revocation status, asked for by the
 * revocation and by the backfill of earlier revocations), in the caller's transaction: one already
 * there is left as it is. Returns the ids of the records queued or found.
 */
export async function enqueueAnchorRecordsOnce(
  trx: Queryable,
  requests: readonly AnchorRequest[],
): Promise<number[]> {
  if (requests.length === 0) return [];
  const rows = requests.map(anchorRecordRow);
  await trx('anchor_records')
    .insert(rows)
    .onConflict(['network_id', 'kind', 'record_key'])
    .ignore();
  const found = await trx('anchor_records')
    .where((query) => {
      for (const row of rows) {
        query.orWhere({ network_id: row.network_id, kind: row.kind, record_key: row.record_key });
      }
    })
    .select<{ id: number | string }[]>('id');
  return found.map((row) => Number(row.id));
}

/**
 * Withdraws a record that no batch has taken yet, in the caller's transaction. Returns false when
 * it is already on its way to the chain (it will be anchored).
 */
export async function cancelQueuedAnchorRecord(trx: Queryable, recordId: number): Promise<boolean> {
  const changed = await trx('anchor_records')
    .where({ id: recordId, status: 'queued' })
    .update({ status: 'cancelled' });
  return changed === 1;
}

/** How a queued record stands, with the transaction of its batch once anchored. */
export interface AnchorRecordState {
  id: number;
  status: AnchorStatus;
  error: string | null;
  networkId: string;
  kind: RecordKind;
  transactionHash: string | null;
  blockNumber: number | null;
  /** When it was anchored (the batch's settlement); null until then. */
  anchoredAt: Date | null;
}

/** Current state of the given records, with the transaction of the anchored ones. */
export async function readAnchorRecordStates(
  db: Queryable,
  ids: readonly number[],
): Promise<AnchorRecordState[]> {
  if (ids.length === 0) return [];
  const rows = await db('anchor_records as r')
    .leftJoin('anchor_batches as b', 'b.id', 'r.batch_id')
    .whereIn('r.id', ids)
    .select<
      {
        id: number;
        status: AnchorStatus;
        error: string | null;
        network_id: string;
        kind: RecordKind;
        transaction_hash: string | null;
        block_number: number | null;
        updated_at: Date | null;
      }[]
    >(
      'r.id',
      'r.status',
      'r.error',
      'r.network_id',
      'r.kind',
      'b.transaction_hash',
      'b.block_number',
      'b.updated_at',
    );
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    error: row.error,
    networkId: row.network_id,
    kind: row.kind,
    transactionHash: row.status === 'anchored' ? row.transaction_hash : null,
    blockNumber: row.status === 'anchored' ? row.block_number : null,
    // An anchored batch is never updated again: its updated_at is when it was settled.
    anchoredAt: row.status === 'anchored' ? row.updated_at : null,
  }));
}

/** The network of each of these records (one entry per record found, in no particular order). */
export async function findAnchorRecordNetworks(
  db: Queryable,
  ids: readonly number[],
): Promise<string[]> {
  const rows = await db('anchor_records')
    .whereIn('id', ids)
    .select<{ network_id: string }[]>('network_id');
  return rows.map((row) => row.network_id);
}
