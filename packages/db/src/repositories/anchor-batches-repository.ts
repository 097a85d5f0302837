import type { Knex } from 'knex';
import { prepared, type Queryable } from '../queryable.js';
import type { QueuedRecord, RecordKind, RefusedRecord } from './anchor-record.js';
import { refundPaidRecords } from './credit-refunds.js';

/**
 * The anchorer side of the anchoring outbox: a batch is stored only while the signer's nonce row
 * and its records are locked and found unchanged, so that across any number of processes each
 * record joins one batch and each nonce one transaction; a mined batch is settled, one that can
 * never be mined abandoned, both in one transaction with their records. The enqueue side is `anchor-queue-repository.ts`.
 */

/** A batch signed and stored, not yet settled: what is re-sent after a crash. */
export interface PendingBatch {
  id: number;
  networkId: string;
  kind: RecordKind;
  signer: string;
  nonce: number;
  /** The batch's latest signed transaction. */
  rawTransaction: string;
  transactionHash: string;
  createdAt: Date;
  /** Every transaction signed for it and not dropped, oldest (lowest fees) first. */
  transactions: BatchTransaction[];
}

/** One signed transaction of a batch: the first or a replacement at the same nonce. */
export interface BatchTransaction {
  id: number;
  rawTransaction: string;
  transactionHash: string;
  /** The latest block when an anchorer first saw it unmined; null until then. */
  pendingSinceBlock: number | null;
}

interface TransactionRow {
  id: number;
  batch_id: number;
  raw_transaction: string;
  transaction_hash: string;
  pending_since_block: number | null;
}

const toBatchTransaction = (row: TransactionRow): BatchTransaction => ({
  id: row.id,
  rawTransaction: row.raw_transaction,
  transactionHash: row.transaction_hash,
  pendingSinceBlock: row.pending_since_block,
});

interface BatchRow {
  id: number;
  network_id: string;
  kind: RecordKind;
  signer: string;
  nonce: number;
  raw_transaction: string;
  transaction_hash: string;
  created_at: Date;
}

/** The columns of `BatchRow`, named for a prepared statement's answer (`prepared`). */
const BATCH_COLUMNS = [
  'id',
  'network_id',
  'kind',
  'signer',
  'nonce',
  'raw_transaction',
  'transaction_hash',
  'created_at',
] as const;

const toPendingBatch = (row: BatchRow, transactions: BatchTransaction[]): PendingBatch => ({
  id: row.id,
  networkId: row.network_id,
  kind: row.kind,
  signer: row.signer,
  nonce: row.nonce,
  rawTransaction: row.raw_transaction,
  transactionHash: row.transaction_hash,
  createdAt: new Date(row.created_at),
  transactions,
});

interface QueuedRow {
  id: number;
  record_key: string;
  hash: string;
  trustpoint_type: number | null;
  record_timestamp: number | string | null;
}

/** The queue of one kind of record on a network: how many wait (up to a batch), and how long. */
export interface QueuedBacklog {
  /** Queued records, counted up to the batch size asked for. */
  count: number;
  /** Age of the oldest queued record, in ms; 0 when none waits. */
  oldestAgeMs: number;
}

/** What a network's sender looks at before claiming: batches unsettled, and each kind's queue. */
export interface SendingState {
  /** Batches signed and not yet settled. */
  unsettled: number;
  backlogs: Map<RecordKind, QueuedBacklog>;
}

/**
 * Reads the batches of a network signed and not yet settled, and for each kind asked for the
 * oldest queued records' count (up to its batch size) and the oldest one's age: one round trip.
 */
export async function readSendingState(
  db: Queryable,
  networkId: string,
  batchSizes: ReadonlyMap<RecordKind, number>,
): Promise<SendingState> {
  const kinds = [...batchSizes].map(([kind, size]) => ({ kind, size }));
  const result = await prepared(
    db.raw<{
      rows: {
        unsettled: number | string;
        kind: RecordKind | null;
        count: number | string | null;
        age_ms: number | string | null;
      }[];
    }>(
      `select (select count(*) from anchor_batches
              where network_id = ? and status = 'signed') as unsettled,
            k.kind, backlog.count, backlog.age_ms
       from (select 1) one
       left join jsonb_to_recordset(?::jsonb) as k(kind text, size int) on true
       left join lateral (
         select count(*) as count,
                extract(epoch from (now() - min(created_at))) * 1000 as age_ms
           from (select created_at from anchor_records
                  where network_id = ? and kind = k.kind and status = 'queued'
                  order by id limit k.size) oldest
       ) backlog on true`,
      [networkId, JSON.stringify(kinds), networkId],
    ),
    'anchor-sending-state',
  );
  const backlogs = new Map<RecordKind, QueuedBacklog>();
  for (const row of result.rows) {
    if (row.kind === null) continue;
    // `age_ms` is numeric in SQL, which both drivers return as text.
    backlogs.set(row.kind, { count: Number(row.count ?? 0), oldestAgeMs: Number(row.age_ms ?? 0) });
  }
  return { unsettled: Number(result.rows[0]?.unsettled ?? 0), backlogs };
}

/** The next nonce this deployment would sign with on a network; undefined before its first batch. */
export async function findSignerNextNonce(
  db: Queryable,
  networkId: string,
  signer: string,
): Promise<number | undefined> {
  const row = await db('signer_nonces')
    .where({ network_id: networkId, signer })
    .first<{ next_nonce: number | string } | undefined>('next_nonce');
  return row === undefined ? undefined : Number(row.next_nonce);
}

/** The signed transaction of a batch (none when every record was refused), and the refused ones. */
export interface SignedBatch {
  transaction: { raw: string; hash: string } | null;
  rejected: RefusedRecord[];
}

export interface ClaimOptions {
  networkId: string;
  kind: RecordKind;
  signer: string;
  maxSize: number;
  /** The next nonce known to the chain, used when this signer has no nonce row yet. */
  chainNonce: () => Promise<number>;
  /**
   * Builds and signs the batch transaction for these records at this nonce. May drop records it
   * finds unanchorable (returned in `rejected` with a reason); they are marked failed. Called once
   * without locks, and again holding them when the first batch could not be stored as signed
   * (something moved, or records were refused): a batch signed and not stored is never sent.
   */
  sign: (records: QueuedRecord[], nonce: number) => Promise<SignedBatch>;
}

export interface ClaimedBatch {
  batch: PendingBatch | null;
  records: QueuedRecord[];
  rejected: RefusedRecord[];
}

/**
 * Marks records the chain refuses for good as failed, with the reason, and gives each paid
 * record's credit back (a refund naming the spend): in the transaction that claimed them, so each
 * is refunded exactly once.
 */
async function failRefusedRecords(trx: Knex.Transaction, refused: readonly RefusedRecord[]) {
  for (const { recordId, reason } of refused) {
    await trx('anchor_records').where({ id: recordId }).update({ status: 'failed', error: reason });
  }
  await refundPaidRecords(
    trx,
    refused.map(({ recordId }) => recordId),
    'record refused by the chain',
  );
}

/**
 * Takes up to `maxSize` queued records into a new signed batch at the signer's next nonce: either
 * the batch, its records and the nonce move together, or nothing does.
 *
 * First without holding anything while the batch is signed: the nonce and the oldest queued
 * records are read, the batch signed, and one statement stores it only if the nonce is still the
 * signer's next and every record still queued. On an engine that runs one transaction at a time
 * (PGlite), a transaction held open while the service signs would keep every other statement
 * waiting. When something moved meanwhile (another process claimed with the same signer or took
 * those records), or the signing refused records (they are marked failed in the claim's
 * transaction), the claim is made again holding locks: the nonce row `FOR UPDATE` while the batch
 * is signed, the records `FOR UPDATE SKIP LOCKED`, so that another signer's claim passes them by.
 */
export async function claimAnchorBatch(
  knex: Knex,
  options: ClaimOptions,
): Promise<ClaimedBatch | null> {
  const { networkId, signer } = options;
  let unlocked = await takeQueued(knex, options, 'unlocked');
  if (!unlocked) {
    // The signer's first claim on this network: its nonce row starts at the chain's.
    const nonce = await options.chainNonce();
    await knex('signer_nonces')
      .insert({ network_id: networkId, signer, next_nonce: nonce })
      .onConflict(['network_id', 'signer'])
      .ignore();
    unlocked = await takeQueued(knex, options, 'unlocked');
  }
  if (!unlocked) throw new Error(`signer_nonces row vanished for ${networkId}/${signer}`);
  if (unlocked.records.length === 0) return null;
  const signed = await options.sign(unlocked.records, unlocked.nonce);
  if (signed.transaction && signed.rejected.length === 0) {
    const batch = await storeBatch(knex, options, unlocked, signed.transaction);
    if (batch) return { batch, records: unlocked.records, rejected: [] };
  }

  return knex.transaction(async (trx) => {
    const locked = await takeQueued(trx, options, 'locked');
    if (!locked) throw new Error(`signer_nonces row vanished for ${networkId}/${signer}`);
    const { nonce, records } = locked;
    if (records.length === 0) return null;
    const { transaction, rejected } = await options.sign(records, nonce);
    if (rejected.length > 0) await failRefusedRecords(trx, rejected);
    const rejectedIds = new Set(rejected.map((r) => r.recordId));
    const included = records.filter((record) => !rejectedIds.has(record.id));
    if (!transaction || included.length === 0) return { batch: null, records: [], rejected };
    const batch = await storeBatch(trx, options, { nonce, records: included }, transaction);
    if (!batch) throw new Error('a claimed batch found its nonce or records moved under its locks');
    return { batch, records: included, rejected };
  });
}

/**
 * The signer's next nonce and the oldest queued records of the kind, in one round trip; undefined
 * when the signer has no nonce row. Locked: the nonce row first (`FOR UPDATE`), then the records no
 * other claim holds (`FOR UPDATE SKIP LOCKED`); unlocked: as they are now.
 */
async function takeQueued(
  db: Queryable,
  { networkId, signer, kind, maxSize }: ClaimOptions,
  mode: 'locked' | 'unlocked',
): Promise<{ nonce: number; records: QueuedRecord[] } | undefined> {
  const taken = await prepared(
    db.raw<{
      rows: { nonce: number | null; records: QueuedRow[] | null }[];
    }>(
      `with nonce as (
       select next_nonce from signer_nonces
        where network_id = :networkId and signer = :signer
        ${mode === 'locked' ? 'for update' : ''}
     ),
     queued as (
       select id, record_key, hash, trustpoint_type, record_timestamp from anchor_records
        where network_id = :networkId and kind = :kind and status = 'queued'
          and exists (select 1 from nonce)
        order by id
        limit :maxSize
        ${mode === 'locked' ? 'for update skip locked' : ''}
     )
     select (select next_nonce from nonce) as nonce,
            (select json_agg(queued order by id) from queued) as records`,
      { networkId, signer, kind, maxSize },
    ),
    `anchor-queue-take-${mode}`,
  );
  const claim = taken.rows[0];
  if (claim?.nonce === null || claim?.nonce === undefined) return undefined;
  return {
    nonce: claim.nonce,
    records: (claim.records ?? []).map((row: QueuedRow) => ({
      id: row.id,
      recordKey: row.record_key,
      hash: row.hash,
      trustPointType: row.trustpoint_type,
      timestamp: row.record_timestamp === null ? null : Number(row.record_timestamp),
    })),
  };
}

/**
 * Stores a signed batch, its first transaction, its records' move and the signer's next nonce in
 * one statement, if the nonce is still the signer's next and every record still queued (both
 * locked by the statement before it writes); otherwise writes nothing and answers undefined.
 */
async function storeBatch(
  db: Queryable,
  { networkId, kind, signer }: ClaimOptions,
  { nonce, records }: { nonce: number; records: readonly QueuedRecord[] },
  transaction: { raw: string; hash: string },
): Promise<PendingBatch | undefined> {
  const stored = await prepared(
    db.raw<{ rows: (BatchRow & { transaction_id: number })[] }>(
      `with nonce as (
       select next_nonce from signer_nonces
        where network_id = :networkId and signer = :signer and next_nonce = :nonce
          for update
     ),
     held as (
       select id from anchor_records
        where id in (select value::bigint from jsonb_array_elements_text(cast(:ids as jsonb)))
          and status = 'queued' and exists (select 1 from nonce)
          for update
     ),
     batch as (
       insert into anchor_batches
         (network_id, kind, signer, nonce, raw_transaction, transaction_hash, status)
       select :networkId, :kind, :signer, :nonce, :raw, :hash, 'signed'
        where (select count(*) from held) = :count
       returning ${BATCH_COLUMNS.join(', ')}
     ),
     sent as (
       insert into anchor_transactions (batch_id, raw_transaction, transaction_hash)
       select id, :raw, :hash from batch
       returning id
     ),
     records as (
       update anchor_records set status = 'batched', batch_id = (select id from batch)
        where id in (select id from held) and exists (select 1 from batch)
     ),
     next as (
       update signer_nonces set next_nonce = :nextNonce
        where network_id = :networkId and signer = :signer and exists (select 1 from batch)
     )
     select ${BATCH_COLUMNS.map((column) => `batch.${column}`).join(', ')},
            sent.id as transaction_id
       from batch cross join sent`,
      {
        networkId,
        kind,
        signer,
        nonce,
        nextNonce: nonce + 1,
        raw: transaction.raw,
        hash: transaction.hash,
        ids: JSON.stringify(records.map((record) => record.id)),
        count: records.length,
      },
    ),
    'anchor-batch-store',
  );
  const row = stored.rows[0];
  if (!row) return undefined;
  return toPendingBatch(row, [
    {
      id: row.transaction_id,
      rawTransaction: transaction.raw,
      transactionHash: transaction.hash,
      pendingSinceBlock: null,
    },
  ]);
}

/** Batches signed but not yet settled on one network, lowest nonce first. */
export async function listPendingBatches(
  db: Queryable,
  networkId: string,
): Promise<PendingBatch[]> {
  const rows = await db('anchor_batches')
    .where({ network_id: networkId, status: 'signed' })
    .orderBy([{ column: 'signer' }, { column: 'nonce' }])
    .select<BatchRow[]>('*');
  if (rows.length === 0) return [];
  const transactions = await db('anchor_transactions')
    .whereIn(
      'batch_id',
      rows.map((row) => row.id),
    )
    .whereNot({ status: 'dropped' })
    .orderBy('id')
    .select<TransactionRow[]>('*');
  const byBatch = new Map<number, BatchTransaction[]>();
  for (const row of transactions) {
    const list = byBatch.get(row.batch_id) ?? [];
    list.push(toBatchTransaction(row));
    byBatch.set(row.batch_id, list);
  }
  return rows.map((row) => toPendingBatch(row, byBatch.get(row.id) ?? []));
}

/** A replacement of a batch's latest transaction (same nonce, higher fees), signed, not yet sent. */
export interface ReplacementTransaction {
  batchId: number;
  /** The id of the transaction it replaces: the batch's latest when the replacement was decided. */
  replacing: number;
  raw: string;
  hash: string;
  pendingSinceBlock: number;
}

/**
 * Stores a signed replacement of a batch's latest transaction, before it is sent. Under the
 * batch's row lock, and only if `replacing` is still its latest transaction and the batch is
 * still unsettled: two anchorers that decide to replace at once store one replacement, not two.
 */
export async function storeReplacementTransaction(
  knex: Knex,
  replacement: ReplacementTransaction,
): Promise<BatchTransaction | undefined> {
  return knex.transaction(async (trx) => {
    const batch = await trx('anchor_batches')
      .where({ id: replacement.batchId, status: 'signed' })
      .forUpdate()
      .first<{ id: number } | undefined>('id');
    if (!batch) return undefined;
    const latest = await trx('anchor_transactions')
      .where({ batch_id: replacement.batchId })
      .orderBy('id', 'desc')
      .first<{ id: number } | undefined>('id');
    if (latest?.id !== replacement.replacing) return undefined;
    const [row] = await trx('anchor_transactions')
      .insert({
        batch_id: replacement.batchId,
        raw_transaction: replacement.raw,
        transaction_hash: replacement.hash,
        pending_since_block: replacement.pendingSinceBlock,
      })
      .returning<TransactionRow[]>('*');
    if (!row) throw new Error('anchor transaction insert returned nothing');
    await trx('anchor_batches').where({ id: replacement.batchId }).update({
      raw_transaction: replacement.raw,
      transaction_hash: replacement.hash,
      updated_at: trx.fn.now(),
    });
    return toBatchTransaction(row);
  });
}

/** Starts (or, after a reorg, restarts) a transaction's count of blocks towards replacement. */
export async function markTransactionPendingSince(
  db: Queryable,
  transactionId: number,
  block: number,
): Promise<void> {
  await db('anchor_transactions')
    .where({ id: transactionId, status: 'signed' })
    .update({ pending_since_block: block });
}

export interface SettledBatch {
  batchId: number;
  /** The batch's transaction that was mined: the first one or one of its replacements. */
  transactionHash: string;
  blockNumber: number;
  smartContract: string;
}

/** The records a settlement anchored, each with when it was queued, and when they were anchored. */
export interface SettledRecords {
  /** In the order of their ids. */
  records: { recordId: number; queuedAt: Date }[];
  /** The time written into their rows. */
  anchoredAt: Date;
}

/**
 * Marks a mined batch anchored with its records, and writes the transaction into the trustpoints
 * or evidences that wait on them, in one statement (one round trip: on the embedded database each
 * one waits for a turn of the service's busy thread). Returns the anchored records, or undefined
 * when another process settled the batch first: its update of the batch waits for that one's
 * commit and then finds the batch no longer signed, and nothing else is written.
 */
export async function settleAnchorBatch(
  knex: Knex,
  settled: SettledBatch,
): Promise<SettledRecords | undefined> {
  const { batchId, transactionHash } = settled;
  // now() is the statement's (its transaction's) start: the batch's updated_at and the rows'
  // anchored_at are the same instant, which waiting requests are told.
  const result = await prepared(
    knex.raw<{
      rows: {
        known: boolean;
        anchored_at: Date | null;
        records: { id: number; queued_at: string }[] | null;
      }[];
    }>(
      `with mined as (
       select raw_transaction from anchor_transactions
        where batch_id = :batchId and transaction_hash = :transactionHash
     ),
     batch as (
       update anchor_batches
          set status = 'anchored', block_number = :blockNumber,
              raw_transaction = (select raw_transaction from mined),
              transaction_hash = :transactionHash, updated_at = now()
        where id = :batchId and status = 'signed' and exists (select 1 from mined)
       returning kind, updated_at
     ),
     -- They share the nonce: once one is mined, the others never can be.
     transactions as (
       update anchor_transactions
          set status = case when transaction_hash = :transactionHash then 'mined' else 'dropped' end
        where batch_id = :batchId and exists (select 1 from batch)
     ),
     records as (
       update anchor_records set status = 'anchored'
        where batch_id = :batchId and status = 'batched' and exists (select 1 from batch)
       returning id, created_at
     ),
     -- A status has no row of its own: its anchor record is all there is to settle.
     trustpoints_anchored as (
       update trustpoints
          set smart_contract = :smartContract, transaction_hash = :transactionHash,
              anchored_at = now()
        where anchor_record_id in (select id from records)
          and (select kind from batch) = 'trustpoint'
     ),
     evidences_anchored as (
       update evidences
          set smart_contract = :smartContract, transaction_hash = :transactionHash,
              anchored_at = now()
        where anchor_record_id in (select id from records)
          and (select kind from batch) = 'evidence'
     )
     select exists (select 1 from mined) as known,
            (select updated_at from batch) as anchored_at,
            (select json_agg(json_build_object('id', id, 'queued_at', created_at) order by id)
               from records) as records`,
      {
        batchId,
        transactionHash,
        blockNumber: settled.blockNumber,
        smartContract: settled.smartContract,
      },
    ),
    'anchor-batch-settle',
  );
  const row = result.rows[0];
  if (!row?.known) throw new Error(`transaction ${transactionHash} is not one of its batch`);
  if (row.anchored_at === null) return undefined;
  return {
    records: (row.records ?? []).map((record) => ({
      recordId: record.id,
      queuedAt: new Date(record.queued_at),
    })),
    anchoredAt: new Date(row.anchored_at),
  };
}

/**
 * Gives up on a batch whose transaction can no longer be mined (reverted, or its nonce taken):
 * its records go back to the queue, and the signer's nonce is realigned with the chain (raised to
 * `chainNonce` when given, never lowered).
 */
export async function abandonAnchorBatch(
  knex: Knex,
  batch: Pick<PendingBatch, 'id' | 'networkId' | 'signer'>,
  reason: string,
  chainNonce: number | undefined,
): Promise<void> {
  await knex.transaction(async (trx) => {
    const changed = await trx('anchor_batches')
      .where({ id: batch.id, status: 'signed' })
      .update({ status: 'failed', error: reason, updated_at: trx.fn.now() });
    if (changed === 0) return;
    await trx('anchor_transactions')
      .where({ batch_id: batch.id, status: 'signed' })
      .update({ status: 'dropped' });
    await trx('anchor_records')
      .where({ batch_id: batch.id, status: 'batched' })
      .update({ status: 'queued', batch_id: null });
    if (chainNonce !== undefined) {
      await trx('signer_nonces')
        .where({ network_id: batch.networkId, signer: batch.signer })
        .where('next_nonce', '<', chainNonce)
        .update({ next_nonce: chainNonce });
    }
  });
}
