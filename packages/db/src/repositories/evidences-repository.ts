import type { AnchoringStatus } from '@trustpoint/domain';
import { prepared, type Queryable } from '../queryable.js';
import { anchorRecordRow } from './anchor-queue-repository.js';
import type { AnchorRequest } from './anchor-record.js';
import { auditEntryRow, type NewAuditEntry } from './audit-repository.js';
import { BALANCES_HELD, BALANCES_LOCKED, userIdsJson } from './credits-repository.js';
import {
  keyCommitsJson,
  keysCommittedUpdate,
  type IdempotencyClaim,
} from './idempotency-keys-repository.js';
import { writeAlongside, type Write } from '../write-together.js';
import { withAnchoringStates } from './anchoring-status.js';
import { refundPaidRecords } from './credit-refunds.js';

/** One evidence of an asset, keyed on chain by (assetHash, timestamp). */
export interface EvidenceRecord {
  id: number;
  /** uuid of the asset row (not the caller's assetId). */
  asset: string;
  /** The asset's assetHash: with the timestamp, the on-chain key. */
  assetHash: string;
  metadata: Record<string, unknown>;
  /** Seconds since the epoch, unique per assetHash. */
  timestamp: number;
  /** `did:user:<sub>` of the user who registered it. */
  userOwner: string;
  /** 64 lowercase hex characters: what `getEvidence(assetHash, timestamp)` returns. */
  hash: string;
  networkId: string;
  /** Null until anchored. */
  smartContract: string | null;
  /** Null until anchored. */
  transactionHash: string | null;
  anchoredAt: Date | null;
  anchorRecordId: number | null;
  /** Pending until anchored; failed when the anchoring engine gave it up (`failure` says why). */
  status: AnchoringStatus;
  failure?: string;
}

/** An evidence to store; where it landed on chain is filled in once anchored. */
export type NewEvidence = Omit<
  EvidenceRecord,
  'id' | 'smartContract' | 'transactionHash' | 'anchoredAt' | 'status' | 'failure'
>;

interface EvidenceRow {
  id: number;
  asset: string;
  asset_hash: string;
  metadata: Record<string, unknown>;
  timestamp: number;
  user_owner: string;
  hash: string;
  network_id: string;
  smart_contract: string | null;
  transaction_hash: string | null;
  anchored_at: Date | null;
  anchor_record_id: number | null;
}

const evidenceColumns = [
  'id',
  'asset',
  'asset_hash',
  'metadata',
  'timestamp',
  'user_owner',
  'hash',
  'network_id',
  'smart_contract',
  'transaction_hash',
  'anchored_at',
  'anchor_record_id',
] as const;

function toEvidence(row: EvidenceRow): EvidenceRecord {
  return {
    id: row.id,
    asset: row.asset,
    assetHash: row.asset_hash,
    metadata: row.metadata,
    timestamp: row.timestamp,
    userOwner: row.user_owner,
    hash: row.hash,
    networkId: row.network_id,
    smartContract: row.smart_contract,
    transactionHash: row.transaction_hash,
    anchoredAt: row.anchored_at,
    anchorRecordId: row.anchor_record_id,
    // Failed ones are told apart by their queue record (`withAnchoringStates`).
    status: row.transaction_hash === null ? 'pending' : 'anchored',
  };
}

/**
 * How far (seconds) an asset's evidence timestamps may run ahead of the clock by default. Each
 * evidence of an assetHash takes the next free second, so a burst runs ahead of the wall clock; 60
 * lets a hot asset absorb a minute's worth of evidences beyond one a second, and keeps every
 * timestamp within a minute of when it was registered.
 */
export const DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS = 60;

/**
 * The evidence clock of an assetHash would run more than the allowed margin ahead of the wall
 * clock: nothing was taken; `retryAfterSeconds` is when a second is free again.
 */
export class EvidenceClockAheadError extends Error {
  override readonly name = 'EvidenceClockAheadError';

  constructor(
    readonly assetHash: string,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `the evidence timestamps of ${assetHash} are too far ahead of the clock; retry in ${String(retryAfterSeconds)} s`,
    );
  }
}

/**
 * The timestamp (seconds) for a new evidence of `assetHash`: `nowSeconds`, or one past the last
 * one given when that is not earlier, at most `maxAheadSeconds` past `nowSeconds` (else
 * `EvidenceClockAheadError`). One upsert: concurrent callers queue on the clock row's lock and
 * each gets a different second. Run on its own (autocommit), the lock lasts for the statement and
 * a caller that fails later leaves a gap, never a reuse; run in a transaction, the lock lasts
 * until it ends and a rollback gives the second back, but evidences of that assetHash then wait
 * for each other's whole transactions.
 */
export async function nextEvidenceTimestamp(
  trx: Queryable,
  assetHash: string,
  nowSeconds: number,
  maxAheadSeconds = DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS,
): Promise<number> {
  const seconds = await nextEvidenceTimestamps(
    trx,
    new Map([[assetHash, 1]]),
    nowSeconds,
    maxAheadSeconds,
  );
  const second = seconds.get(assetHash);
  if (second === undefined) {
    throw new EvidenceClockAheadError(
      assetHash,
      await evidenceClockRetryAfter(trx, assetHash, nowSeconds, maxAheadSeconds),
    );
  }
  return second;
}

/**
 * `nextEvidenceTimestamp` for several evidences at once: for each assetHash, `count` consecutive
 * seconds, the first `nowSeconds` or one past the last one given, whichever is later. One upsert
 * for all, locking the clock rows in assetHash order (so concurrent callers cannot deadlock) for
 * that statement only when run on its own. Returns the first second of each assetHash whose
 * `count` seconds all end at most `maxAheadSeconds` past `nowSeconds`; an assetHash left out got
 * none, and its clock is unchanged.
 */
export async function nextEvidenceTimestamps(
  db: Queryable,
  counts: ReadonlyMap<string, number>,
  nowSeconds: number,
  maxAheadSeconds = DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS,
): Promise<Map<string, number>> {
  const entries = [...counts]
    .filter(([, count]) => count > 0 && count - 1 <= maxAheadSeconds)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return new Map();
  // The inserted value is the last second a new clock gives (now + count - 1), so the conflict
  // branch recovers `count` as excluded.last_timestamp - now + 1. A clock that would end past
  // now + maxAhead is left alone and returns no row.
  const advanced = `greatest(
             evidence_clocks.last_timestamp + (excluded.last_timestamp - ?::bigint + 1),
             excluded.last_timestamp)`;
  const result = await db.raw<{ rows: { asset_hash: string; last_timestamp: number | string }[] }>(
    `insert into evidence_clocks (asset_hash, last_timestamp)
     select asset_hash, ?::bigint + count - 1
       from jsonb_to_recordset(?::jsonb) as wanted(asset_hash text, count int)
      order by asset_hash
     on conflict (asset_hash) do update
       set last_timestamp = ${advanced}
       where ${advanced} <= ?::bigint
     returning asset_hash, last_timestamp`,
    [
      nowSeconds,
      JSON.stringify(entries.map(([assetHash, count]) => ({ asset_hash: assetHash, count }))),
      nowSeconds,
      nowSeconds,
      nowSeconds + maxAheadSeconds,
    ],
  );
  return new Map(
    result.rows.map((row) => [
      row.asset_hash,
      Number(row.last_timestamp) - (counts.get(row.asset_hash) ?? 1) + 1,
    ]),
  );
}

/** Seconds until the clock of `assetHash` is within `maxAheadSeconds` of the wall clock again. */
export async function evidenceClockRetryAfter(
  db: Queryable,
  assetHash: string,
  nowSeconds: number,
  maxAheadSeconds = DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS,
): Promise<number> {
  const row = await db('evidence_clocks')
    .where({ asset_hash: assetHash })
    .first<{ last_timestamp: number | string } | undefined>('last_timestamp');
  const last = Number(row?.last_timestamp ?? nowSeconds);
  return Math.max(1, last + 1 - (nowSeconds + maxAheadSeconds));
}

/**
 * Stores several evidences in one statement, in the order given (which their ids follow). A
 * timestamp an assetHash already has surfaces as the database error, as for `insertEvidence`.
 * `alongside`: other writes of the transaction sent in the same statement (`writeAlongside`).
 */
export async function insertEvidences(
  db: Queryable,
  evidences: readonly NewEvidence[],
  alongside: readonly (Write | undefined)[] = [],
): Promise<EvidenceRecord[]> {
  if (evidences.length === 0) return [];
  const rows = await writeAlongside<EvidenceRow>(
    db,
    db('evidences').insert(evidences.map(evidenceInsertRow)).returning(evidenceColumns),
    alongside,
  );
  const byKey = new Map(rows.map((row) => [`${row.asset_hash}\n${String(row.timestamp)}`, row]));
  return evidences.map((evidence) => {
    const row = byKey.get(`${evidence.assetHash}\n${String(evidence.timestamp)}`);
    if (row === undefined) throw new Error(`evidence of ${evidence.asset} was not inserted`);
    return toEvidence(row);
  });
}

/** An evidence to store with what is written with it (`insertEvidencesWithWrites`). */
export interface EvidenceWithWrites {
  evidence: Omit<NewEvidence, 'anchorRecordId'>;
  /** The record that anchors it, queued with it. */
  record: AnchorRequest;
  /** Who pays its credit: its registrant. */
  payerId: string;
  /**
   * The registrant writes to an asset shared with them (not their own): the share must still be
   * there as the evidence is written, and is held until it commits (`holdAssetShares`).
   */
  throughShare: boolean;
  audit: NewAuditEntry;
  /** The request's `Idempotency-Key`, committed naming `resource`: a lost claim leaves it out. */
  idempotency?: IdempotencyClaim | undefined;
  resource: string;
}

/** What `insertEvidencesWithWrites` did, by position in the list given. */
export type EvidenceWithWritesOutcome =
  | { kind: 'stored'; evidence: EvidenceRecord }
  /** Its request's claim on its key was lost to a retry. */
  | { kind: 'keyLost' }
  /** Its payer has no credit balance at all. */
  | { kind: 'withoutBalance' }
  /** The asset's owner withdrew its share with the registrant before it was written. */
  | { kind: 'unshared' };

/**
 * A group of evidences in one statement on its own, which commits as it ends: it locks the
 * payers' balances in user order before anything else (an init plan), commits the requests'
 * `Idempotency-Key`s, and for each evidence whose request still holds its key and whose payer has
 * a balance queues its record, stores it on that record, spends one credit and writes its audit
 * entry. A payer who would spend more than they hold fails the balance's check and nothing stays:
 * the caller then takes the locked way, which decides who is refused. Timestamps must be taken
 * first (`nextEvidenceTimestamps`): one an assetHash already has surfaces as the database error.
 */
export async function insertEvidencesWithWrites(
  db: Queryable,
  items: readonly EvidenceWithWrites[],
): Promise<EvidenceWithWritesOutcome[]> {
  if (items.length === 0) return [];
  const keyed = items.filter((item) => item.idempotency !== undefined);
  const rows = items.map(({ evidence, record, payerId, throughShare, idempotency }, position) => ({
    position,
    through_share: throughShare,
    asset: evidence.asset,
    asset_hash: evidence.assetHash,
    metadata: evidence.metadata,
    timestamp: evidence.timestamp,
    user_owner: evidence.userOwner,
    hash: evidence.hash,
    network_id: evidence.networkId,
    payer_id: payerId,
    claim_owner: idempotency?.owner ?? null,
    ...prefixed(anchorRecordRow(record)),
  }));
  const keysCommitted =
    keyed.length === 0 ? '' : `keys_committed as (${keysCommittedUpdate(BALANCES_HELD)}),`;
  const nulls = evidenceColumns.map(() => 'null').join(', ');
  const result = await prepared(
    db.raw<{
      rows: (EvidenceRow & {
        position: number | null;
        balance_user: string | null;
        unshared: boolean;
      })[];
    }>(
      `with ${BALANCES_LOCKED},
     ${keysCommitted}
     -- A share the evidence is written through is held (key share) until the statement commits:
     -- its withdrawal waits for it, and one committed first leaves the evidence out.
     given as materialized (
       select e.*, (not e.through_share or exists (
                select 1 from asset_shares s where s.asset = e.asset and s.user_id = e.payer_id
                   for key share)) as shared
         from json_to_recordset(?::json) as e(position int, through_share boolean, asset uuid,
              asset_hash text, metadata jsonb, timestamp bigint, user_owner text, hash text,
              network_id text, payer_id text, claim_owner text, record_network_id text,
              record_kind text, record_key text, record_hash text,
              record_trustpoint_type smallint, record_paid_by text, record_timestamp bigint)
        where ${BALANCES_HELD}
     ),
     accepted as materialized (
       select e.* from given e
        where e.shared
          and e.payer_id in (select user_id from balances_locked)
          ${keyed.length === 0 ? '' : 'and (e.claim_owner is null or e.claim_owner in (select owner from keys_committed))'}
     ),
     queued as (
       insert into anchor_records
              (network_id, kind, record_key, hash, trustpoint_type, paid_by, record_timestamp)
       select record_network_id, record_kind, record_key, record_hash, record_trustpoint_type,
              record_paid_by, record_timestamp
         from accepted order by position
       returning id, network_id, kind, record_key
     ),
     evidences_in as (
       insert into evidences
              (asset, asset_hash, metadata, timestamp, user_owner, hash, network_id,
               anchor_record_id)
       select a.asset, a.asset_hash, a.metadata, a.timestamp, a.user_owner, a.hash, a.network_id,
              queued.id
         from accepted a
         join queued on queued.network_id = a.record_network_id and queued.kind = a.record_kind
              and queued.record_key = a.record_key
        order by a.position
       returning ${evidenceColumns.join(', ')}
     ),
     credits_spent as (
       update credits set balance = credits.balance - spent.amount, updated_at = now()
         from (select payer_id, count(*)::int as amount from accepted group by payer_id) as spent
        where credits.user_id = spent.payer_id
     ),
     audited as (
       insert into audit_log (actor_id, request_id, action, target, changes)
       select e.actor_id, e.request_id, e.action, e.target, e.changes
         from json_to_recordset(?::json) as e(position int, actor_id text, request_id text,
              action text, target text, changes jsonb)
        where e.position in (select position from accepted)
     )
     select evidences_in.*, accepted.position, null::text as balance_user, false as unshared
       from evidences_in
       join accepted on accepted.asset_hash = evidences_in.asset_hash
            and accepted.timestamp = evidences_in.timestamp
     union all
     select ${nulls}, null, user_id, false from balances_locked
     union all
     select ${nulls}, position, null, true from given where not shared`,
      [
        userIdsJson(items.map(({ payerId }) => payerId)),
        ...(keyed.length === 0
          ? []
          : [
              keyCommitsJson(
                keyed.map(({ idempotency, resource }) => ({
                  claim: idempotency as IdempotencyClaim,
                  resource,
                })),
              ),
            ]),
        JSON.stringify(rows),
        JSON.stringify(items.map(({ audit }, position) => ({ position, ...auditEntryRow(audit) }))),
      ],
    ),
    keyed.length === 0 ? 'evidences-with-writes' : 'evidences-with-writes-keyed',
  );
  const stored = new Map<number, EvidenceRecord>();
  const balanced = new Set<string>();
  const unshared = new Set<number>();
  for (const row of result.rows) {
    if (row.unshared) unshared.add(row.position as number);
    else if (row.balance_user !== null) balanced.add(row.balance_user);
    else stored.set(row.position as number, toEvidence(row));
  }
  return items.map(({ payerId }, position): EvidenceWithWritesOutcome => {
    const evidence = stored.get(position);
    if (evidence !== undefined) return { kind: 'stored', evidence };
    if (unshared.has(position)) return { kind: 'unshared' };
    // Left out for one of two reasons: no balance, or (with one) a key lost to a retry.
    return balanced.has(payerId) ? { kind: 'keyLost' } : { kind: 'withoutBalance' };
  });
}

/** An anchor record's columns as `record_*` members, beside the evidence's own in one row. */
function prefixed(row: ReturnType<typeof anchorRecordRow>) {
  return {
    record_network_id: row.network_id,
    record_kind: row.kind,
    record_key: row.record_key,
    record_hash: row.hash,
    record_trustpoint_type: row.trustpoint_type,
    record_paid_by: row.paid_by,
    record_timestamp: row.record_timestamp,
  };
}

function evidenceInsertRow(evidence: NewEvidence) {
  return {
    asset: evidence.asset,
    asset_hash: evidence.assetHash,
    // pg would send an array as a PostgreSQL array, not as JSON.
    metadata: JSON.stringify(evidence.metadata),
    timestamp: evidence.timestamp,
    user_owner: evidence.userOwner,
    hash: evidence.hash,
    network_id: evidence.networkId,
    anchor_record_id: evidence.anchorRecordId,
  };
}

/**
 * Stores an evidence. A timestamp its assetHash already has surfaces as the database error
 * (`evidences_asset_hash_timestamp_unique`): take timestamps from `nextEvidenceTimestamp`.
 */
export async function insertEvidence(
  db: Queryable,
  evidence: NewEvidence,
): Promise<EvidenceRecord> {
  const [row] = await db('evidences')
    .insert(evidenceInsertRow(evidence))
    .returning<EvidenceRow[]>(evidenceColumns);
  if (row === undefined)
    throw new Error(`inserting an evidence of ${evidence.asset} returned no row`);
  return toEvidence(row);
}

/** The evidences of the given assets in one query, each asset's oldest first. */
export async function loadEvidences(
  db: Queryable,
  assets: readonly string[],
): Promise<Map<string, EvidenceRecord[]>> {
  const byAsset = new Map<string, EvidenceRecord[]>(assets.map((id) => [id, []]));
  if (assets.length === 0) return byAsset;
  const rows = await db('evidences')
    .whereIn('asset', assets)
    .orderBy(['asset', 'timestamp'])
    .select<EvidenceRow[]>(evidenceColumns);
  const evidences = await withAnchoringStates(db, rows.map(toEvidence));
  for (const evidence of evidences) byAsset.get(evidence.asset)?.push(evidence);
  return byAsset;
}

/** One evidence by its id, or undefined. */
export async function findEvidence(db: Queryable, id: number): Promise<EvidenceRecord | undefined> {
  const row = await db('evidences').where('id', id).first<EvidenceRow | undefined>(evidenceColumns);
  return row === undefined ? undefined : (await withAnchoringStates(db, [toEvidence(row)]))[0];
}

/**
 * Every evidence with this hash, oldest first. Usually one; the hash covers metadata, timestamp
 * and owner but not the asset, so one user's identical metadata on two assets in the same
 * second gives two.
 */
export async function findEvidencesByHash(db: Queryable, hash: string): Promise<EvidenceRecord[]> {
  const rows = await db('evidences')
    .where('hash', hash)
    .orderBy(['timestamp', 'id'])
    .select<EvidenceRow[]>(evidenceColumns);
  return withAnchoringStates(db, rows.map(toEvidence));
}

/**
 * Undoes an evidence whose anchor record never left the queue: removes it and gives the credit
 * back to the user who paid for it (its anchor record's `paid_by`), naming the spend. Use it in the transaction that withdrew the queued record. The
 * clock keeps its second: a gap in an asset's timestamps is harmless, a reused one is not.
 */
export async function withdrawEvidence(db: Queryable, evidenceId: number): Promise<void> {
  const evidence = await db('evidences')
    .where('id', evidenceId)
    .first<{ id: number; anchor_record_id: number | null } | undefined>('id', 'anchor_record_id');
  if (evidence === undefined) return;
  // The credit row first, as requests take it, so that the two cannot deadlock; before the
  // evidence goes, as it leads the refund to the spend it gives back.
  await refundPaidRecords(
    db,
    evidence.anchor_record_id === null ? [] : [evidence.anchor_record_id],
    'evidence withdrawn',
  );
  await db('evidences').where('id', evidenceId).delete();
}
