import type { Queryable } from '../queryable.js';

/** The states of a record the APIs acknowledged: withdrawn (`cancelled`) records are not among them. */
export const ACKNOWLEDGED_RECORD_STATUSES = ['queued', 'batched', 'anchored', 'failed'] as const;
export type AcknowledgedRecordStatus = (typeof ACKNOWLEDGED_RECORD_STATUSES)[number];

/** Most records one page of `listAcknowledgedRecords` answers. */
export const MAX_RECORDS_PAGE = 10_000;

/**
 * A record the service answered 201 or 202 for, as the database holds it: what it promised to
 * write on chain (key, hash, type) and where it says it is (contract, transaction, block).
 */
export interface AcknowledgedRecord {
  /** The anchoring queue's id: the cursor of the pages. */
  id: number;
  networkId: string;
  kind: 'trustpoint' | 'evidence';
  /** 0x + 64 hex. */
  recordKey: string;
  /** 64 lowercase hex, without 0x. */
  hash: string;
  /** 0 Evidence, 1 Revocation, 2 Signature; null for evidences. */
  trustPointType: number | null;
  status: AcknowledgedRecordStatus;
  /** The registry its trustpoint or evidence names once anchored; null before. */
  contract: string | null;
  /** The mined transaction, once anchored. */
  transactionHash: string | null;
  blockNumber: number | null;
  createdAt: Date;
  anchoredAt: Date | null;
}

export interface AcknowledgedRecordsFilter {
  networkId?: string;
  /** Records created at or after this time. */
  since?: Date;
  /** The id of the last record of the previous page. */
  after?: number;
  limit: number;
}

interface RecordRow {
  id: number;
  network_id: string;
  kind: 'trustpoint' | 'evidence';
  record_key: string;
  hash: string;
  trustpoint_type: number | null;
  status: AcknowledgedRecordStatus;
  contract: string | null;
  transaction_hash: string | null;
  block_number: number | null;
  created_at: Date;
  anchored_at: Date | null;
}

/**
 * A page of acknowledged records, by id. Keyset paging on the primary key: each page is one index
 * range scan from the cursor, however deep into a large table it is, and rows inserted meanwhile
 * only ever land after the last page. The contract and anchoring time come from the record's own
 * trustpoint or evidence (one index lookup each); the transaction and block from its batch, once
 * that batch is settled.
 */
export async function listAcknowledgedRecords(
  db: Queryable,
  filter: AcknowledgedRecordsFilter,
): Promise<AcknowledgedRecord[]> {
  const query = db({ r: 'anchor_records' })
    .leftJoin({ b: 'anchor_batches' }, function joinSettledBatch() {
      this.on('b.id', '=', 'r.batch_id').andOnVal('b.status', '=', 'anchored');
    })
    .leftJoin({ t: 'trustpoints' }, function joinTrustpoint() {
      this.on('t.anchor_record_id', '=', 'r.id').andOnVal('r.kind', '=', 'trustpoint');
    })
    .leftJoin({ e: 'evidences' }, function joinEvidence() {
      this.on('e.anchor_record_id', '=', 'r.id').andOnVal('r.kind', '=', 'evidence');
    })
    .whereIn('r.status', ACKNOWLEDGED_RECORD_STATUSES)
    // Revocation statuses live in the status registry, which reconciliation does not scan yet.
    .whereIn('r.kind', ['trustpoint', 'evidence'])
    .where('r.id', '>', filter.after ?? 0)
    .orderBy('r.id', 'asc')
    .limit(Math.min(filter.limit, MAX_RECORDS_PAGE));
  if (filter.networkId !== undefined) query.where('r.network_id', filter.networkId);
  if (filter.since !== undefined) query.where('r.created_at', '>=', filter.since);
  const rows = await query.select<RecordRow[]>(
    'r.id',
    'r.network_id',
    'r.kind',
    'r.record_key',
    'r.hash',
    'r.trustpoint_type',
    'r.status',
    db.raw('coalesce(t.smart_contract, e.smart_contract) as contract'),
    'b.transaction_hash',
    'b.block_number',
    'r.created_at',
    db.raw('coalesce(t.anchored_at, e.anchored_at) as anchored_at'),
  );
  return rows.map((row) => ({
    id: row.id,
    networkId: row.network_id,
    kind: row.kind,
    recordKey: row.record_key,
    hash: row.hash,
    trustPointType: row.trustpoint_type,
    status: row.status,
    contract: row.contract,
    // A failed record's batch was mined without it: its transaction is not the record's.
    transactionHash: row.status === 'anchored' ? row.transaction_hash : null,
    blockNumber: row.status === 'anchored' ? row.block_number : null,
    createdAt: row.created_at,
    anchoredAt: row.anchored_at,
  }));
}
