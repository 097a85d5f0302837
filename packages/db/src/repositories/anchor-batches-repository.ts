import type { Knex } from 'knex';
import type { Queryable } from '../queryable.js';
import type { QueuedRecord, RecordKind, RefusedRecord } from './anchor-record.js';
import { refundPaidRecords } from './credit-refunds.js';

/**
 * The anchorer side of the anchoring outbox: batches are claimed under the signer's nonce row
 * lock, so that across any number of processes each record joins one batch and each nonce one
 * transaction; a mined batch is settled, one that can never be mined abandoned, both in one
 * transaction with their records. The enqueue side is `anchor-queue-repository.ts`.
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

/** The oldest queued records' count (up to `limit`) and the age of the oldest, in ms. */
export async function readQueuedBacklog(
  db: Queryable,
  networkId: string,
  kind: RecordKind,
  limit: number,
): Promise<{ count: number; oldestAgeMs: number }> {
  const result = await db.raw<{
    rows: { count: number | string | null; age_ms: number | string | null }[];
  }>(
    `select count(*) as count,
            extract(epoch from (now() - min(created_at))) * 1000 as age_ms
       from (select created_at from anchor_records
              where network_id = ? and kind = ? and status = 'queued'
              order by id limit ?) oldest`,
    [networkId, kind, limit],
  );
  const row = result.rows[0];
  // `age_ms` is numeric in SQL, which both drivers return as text.
  return { count: Number(row?.count ?? 0), oldestAgeMs: Number(row?.age_ms ?? 0) };
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
   * Builds and signs the batch transaction for these records at this nonce, while the nonce is
   * locked. May drop records it finds unanchorable (returned in `rejected` with a reason); they
   * are marked failed.
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
 * Takes up to `maxSize` queued records into a new signed batch at the signer's next nonce, in one
 * transaction: either the batch, its records and the nonce move together, or nothing does. The
 * nonce row is locked (`FOR UPDATE`) while the batch is signed; the records are taken with
 * `FOR UPDATE SKIP LOCKED`, so another signer's claim passes them by.
 */
export async function claimAnchorBatch(
  knex: Knex,
  options: ClaimOptions,
): Promise<ClaimedBatch | null> {
  const { networkId, kind, signer } = options;
  const existing = await knex('signer_nonces')
    .where({ network_id: networkId, signer })
    .first<{ next_nonce: number } | undefined>();
  if (!existing) {
    const nonce = await options.chainNonce();
    await knex('signer_nonces')
      .insert({ network_id: networkId, signer, next_nonce: nonce })
      .onConflict(['network_id', 'signer'])
      .ignore();
  }

  return knex.transaction(async (trx) => {
    const nonceRow = await trx('signer_nonces')
      .where({ network_id: networkId, signer })
      .forUpdate()
      .first<{ next_nonce: number } | undefined>();
    if (!nonceRow) throw new Error(`signer_nonces row vanished for ${networkId}/${signer}`);
    const nonce = nonceRow.next_nonce;

    const rows = await trx('anchor_records')
      .select<QueuedRow[]>('id', 'record_key', 'hash', 'trustpoint_type', 'record_timestamp')
      .where({ network_id: networkId, kind, status: 'queued' })
      .orderBy('id')
      .limit(options.maxSize)
      .forUpdate()
      .skipLocked();
    if (rows.length === 0) return null;
    const records: QueuedRecord[] = rows.map((row: QueuedRow) => ({
      id: row.id,
      recordKey: row.record_key,
      hash: row.hash,
      trustPointType: row.trustpoint_type,
      timestamp: row.record_timestamp === null ? null : Number(row.record_timestamp),
    }));

    const { transaction, rejected } = await options.sign(records, nonce);
    await failRefusedRecords(trx, rejected);
    const rejectedIds = new Set(rejected.map((r) => r.recordId));
    const included = records.filter((record) => !rejectedIds.has(record.id));
    if (!transaction || included.length === 0) return { batch: null, records: [], rejected };

    const [batchRow] = await trx('anchor_batches')
      .insert({
        network_id: networkId,
        kind,
        signer,
        nonce,
        raw_transaction: transaction.raw,
        transaction_hash: transaction.hash,
        status: 'signed',
      })
      .returning<BatchRow[]>('*');
    if (!batchRow) throw new Error('anchor batch insert returned nothing');
    const [transactionRow] = await trx('anchor_transactions')
      .insert({
        batch_id: batchRow.id,
        raw_transaction: transaction.raw,
        transaction_hash: transaction.hash,
      })
      .returning<TransactionRow[]>('*');
    if (!transactionRow) throw new Error('anchor transaction insert returned nothing');
    await trx('anchor_records')
      .whereIn(
        'id',
        included.map((record) => record.id),
      )
      .update({ status: 'batched', batch_id: batchRow.id });
    await trx('signer_nonces')
      .where({ network_id: networkId, signer })
      .update({ next_nonce: nonce + 1 });
    return {
      batch: toPendingBatch(batchRow, [toBatchTransaction(transactionRow)]),
      records: included,
      rejected,
    };
  });
}

/** How many batches of one network are signed and not yet settled. */
export async function countPendingBatches(db: Queryable, networkId: string): Promise<number> {
  const row = await db('anchor_batches')
    .where({ network_id: networkId, status: 'signed' })
    .count<{ count: number }[]>('* as count')
    .first();
  return row?.count ?? 0;
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

/** The records a settlement anchored, and when (the time written into their rows). */
export interface SettledRecords {
  recordIds: number[];
  anchoredAt: Date;
}

/**
 * Marks a mined batch anchored with its records, and writes the transaction into the trustpoints
 * or evidences that wait on them, all in one transaction. Returns the anchored records, or
 * undefined when another process settled the batch first.
 */
export async function settleAnchorBatch(
  knex: Knex,
  settled: SettledBatch,
): Promise<SettledRecords | undefined> {
  return knex.transaction(async (trx) => {
    // now() is the transaction's start time: the batch's updated_at and the rows' anchored_at
    // below are the same instant, which waiting requests are told.
    const mined = await trx('anchor_transactions')
      .where({ batch_id: settled.batchId, transaction_hash: settled.transactionHash })
      .first<{ raw_transaction: string } | undefined>('raw_transaction');
    if (!mined) throw new Error(`transaction ${settled.transactionHash} is not one of its batch`);
    const batch = await trx('anchor_batches')
      .where({ id: settled.batchId, status: 'signed' })
      .update({
        status: 'anchored',
        block_number: settled.blockNumber,
        raw_transaction: mined.raw_transaction,
        transaction_hash: settled.transactionHash,
        updated_at: trx.fn.now(),
      })
      .returning<{ kind: RecordKind; transaction_hash: string; updated_at: Date }[]>([
        'kind',
        'transaction_hash',
        'updated_at',
      ]);
    const row = batch[0];
    if (!row) return undefined;
    // They share the nonce: once one is mined, the others never can be.
    await trx('anchor_transactions')
      .where({ batch_id: settled.batchId })
      .update({
        status: trx.raw("case when transaction_hash = ? then 'mined' else 'dropped' end", [
          settled.transactionHash,
        ]),
      });
    const anchored = await trx('anchor_records')
      .where({ batch_id: settled.batchId, status: 'batched' })
      .update({ status: 'anchored' })
      .returning<{ id: number }[]>('id');
    const ids = anchored.map((record) => record.id);
    // A status has no row of its own: its anchor record is all there is to settle.
    if (row.kind !== 'status') {
      const target = row.kind === 'trustpoint' ? 'trustpoints' : 'evidences';
      await trx(target).whereIn('anchor_record_id', ids).update({
        smart_contract: settled.smartContract,
        transaction_hash: row.transaction_hash,
        anchored_at: trx.fn.now(),
      });
    }
    return { recordIds: ids, anchoredAt: row.updated_at };
  });
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
