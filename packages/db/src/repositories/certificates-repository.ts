import type { AnchoringStatus, CertificateType } from '@trustpoint/domain';
import type { Knex } from 'knex';
import { prepared, type Queryable } from '../queryable.js';
import { anchorRecordRow } from './anchor-queue-repository.js';
import type { AnchorRequest } from './anchor-record.js';
import { whereAnchoringStatus, withAnchoringStates } from './anchoring-status.js';
import { auditEntryRow, type NewAuditEntry } from './audit-repository.js';
import { BALANCES_HELD, BALANCES_LOCKED, userIdsJson } from './credits-repository.js';
import {
  keyCommitsJson,
  keysCommittedUpdate,
  type IdempotencyClaim,
} from './idempotency-keys-repository.js';

/** 1: `hash` covers the content or the file only; 2: every shown field, with selective disclosure. */
export type CertificateHashVersion = 1 | 2;

/** What a version 2 certificate's root is computed from besides its shown fields. */
export interface SelectiveDisclosureRecord {
  content: Record<string, unknown>;
  disclosures: string[];
}

/** What makes a version 1 certificate a version 2 one (see `reanchorCertificate`). */
export interface CertificateHashV2 {
  hash: string;
  issuerOrigin: string | null;
  /** The domain the issuing account had proven (`data.issuerDomain`), when it had one. */
  issuerDomain: string | null;
  selectiveDisclosure: SelectiveDisclosureRecord;
}

/** The trustpoint type as the registry contract knows it: Evidence, Revocation, Signature. */
export type TrustpointTypeCode = 0 | 1 | 2;

/** One on-chain record of a certificate, keyed on-chain by (certID, timestamp). */
export interface TrustpointRecord {
  type: TrustpointTypeCode;
  /** 64 lowercase hex characters. */
  hash: string;
  /** Milliseconds since the epoch; with the certID, the on-chain key. */
  timestamp: number;
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
  /** Signature trustpoints: the signature (compact JWS) whose double hash is `hash`. */
  signature?: string;
}

export interface CertificateRecord {
  /** uuid */
  id: string;
  /** `did:<ns>:certid:<uuidv7>` */
  certId: string;
  userId: string;
  type: CertificateType;
  name: string;
  description: string;
  content: Record<string, unknown>;
  /**
   * `data.hash`, what the Evidence trustpoint anchors: the unsalted digest of the content or file
   * under version 1 (DESIGN.md 3), the root over every shown field under version 2.
   */
  hash: string;
  /**
   * The unsalted digest of the content or file (version 1's rule), whatever the version: what a
   * repeat (409) and the `/hash/` lookup compare. Equal to `hash` under version 1.
   */
  contentDigest: string;
  /** Which rule `hash` follows (`data.hashVersion`; 1 when the certificate does not say). */
  hashVersion: CertificateHashVersion;
  /** Version 2: the https origin of the issuing service, when it had one configured. */
  issuerOrigin: string | null;
  /** Version 2: the domain its issuer had proven with a DNS TXT record (`data.issuerDomain`). */
  issuerDomain: string | null;
  /**
   * Version 2: the content as the hash covers it (SD-JWT digests) and every disclosure. The
   * disclosures hold the salts: show them only to readers allowed to see the certificate.
   */
  selectiveDisclosure: SelectiveDisclosureRecord | null;
  fileHash: string | null;
  /** Milliseconds since the epoch. */
  issuedOn: number;
  expires: number | null;
  public: boolean;
  pinEncrypted: string | null;
  externalId: string | null;
  revokedAt: number | null;
  networkId: string;
  createdAt: Date;
  /** Ordered by timestamp, oldest first. */
  trustpoints: TrustpointRecord[];
}

/** A trustpoint to store; where it landed on chain is filled in once anchored. */
export type NewTrustpoint = Pick<
  TrustpointRecord,
  'type' | 'hash' | 'timestamp' | 'networkId' | 'anchorRecordId' | 'signature'
>;

/**
 * A certificate to store: everything but what the database or later events set. Without
 * `hashVersion` it is version 1, and `contentDigest` is `hash`.
 */
export type NewCertificate = Omit<
  CertificateRecord,
  | 'revokedAt'
  | 'createdAt'
  | 'trustpoints'
  | 'contentDigest'
  | 'hashVersion'
  | 'issuerOrigin'
  | 'issuerDomain'
  | 'selectiveDisclosure'
> &
  Partial<
    Pick<
      CertificateRecord,
      'contentDigest' | 'hashVersion' | 'issuerOrigin' | 'issuerDomain' | 'selectiveDisclosure'
    >
  >;

export type CertificateLookup = 'certId' | 'externalId' | 'fileHash' | 'hash';

export interface CertificateListFilter {
  userId: string;
  access?: 'public' | 'private';
  type?: CertificateType;
  /** issuedOn >= from (ms). */
  from?: number;
  /** issuedOn <= to (ms). */
  to?: number;
  /** Only certificates in this anchoring status (the least settled of their trustpoints). */
  status?: AnchoringStatus;
  offset: number;
  limit: number;
  /** By issuedOn, then id, so that equal issuedOn values page stably. */
  order: 'asc' | 'desc';
}

export interface CertificateAccessChanges {
  public?: boolean;
  /** Null removes the PIN. */
  pinEncrypted?: string | null;
  /** Null removes the external id. */
  externalId?: string | null;
}

interface CertificateRow {
  id: string;
  cert_id: string;
  user_id: string;
  type: CertificateType;
  name: string;
  description: string;
  content: Record<string, unknown>;
  /** The unsalted digest of the content or file, whatever the version (migration 0022). */
  hash: string;
  hash_version: CertificateHashVersion;
  anchored_hash: string | null;
  issuer_origin: string | null;
  issuer_domain: string | null;
  disclosable_content: Record<string, unknown> | null;
  disclosures: string[] | null;
  file_hash: string | null;
  issued_on: number;
  expires: number | null;
  public: boolean;
  pin_encrypted: string | null;
  external_id: string | null;
  revoked_at: number | null;
  network_id: string;
  created_at: Date;
}

interface TrustpointRow {
  certificate_id: string;
  type: TrustpointTypeCode;
  hash: string;
  timestamp: number;
  network_id: string;
  smart_contract: string | null;
  transaction_hash: string | null;
  anchored_at: Date | null;
  anchor_record_id: number | null;
  signature: string | null;
}

const certificateColumns = [
  'id',
  'cert_id',
  'user_id',
  'type',
  'name',
  'description',
  'content',
  'hash',
  'hash_version',
  'anchored_hash',
  'issuer_origin',
  'issuer_domain',
  'disclosable_content',
  'disclosures',
  'file_hash',
  'issued_on',
  'expires',
  'public',
  'pin_encrypted',
  'external_id',
  'revoked_at',
  'network_id',
  'created_at',
] as const;

const trustpointColumns = [
  'certificate_id',
  'type',
  'hash',
  'timestamp',
  'network_id',
  'smart_contract',
  'transaction_hash',
  'anchored_at',
  'anchor_record_id',
  'signature',
] as const;

const lookupColumns: Readonly<Record<CertificateLookup, keyof CertificateRow>> = {
  certId: 'cert_id',
  externalId: 'external_id',
  fileHash: 'file_hash',
  hash: 'hash',
};

function toTrustpoint(row: TrustpointRow): TrustpointRecord {
  return {
    type: row.type,
    hash: row.hash,
    timestamp: row.timestamp,
    networkId: row.network_id,
    smartContract: row.smart_contract,
    transactionHash: row.transaction_hash,
    anchoredAt: row.anchored_at,
    anchorRecordId: row.anchor_record_id,
    // Failed ones are told apart by their queue record (`withAnchoringStates`).
    status: row.transaction_hash === null ? 'pending' : 'anchored',
    ...(row.signature === null ? {} : { signature: row.signature }),
  };
}

function toCertificate(row: CertificateRow, trustpoints: TrustpointRecord[]): CertificateRecord {
  return {
    id: row.id,
    certId: row.cert_id,
    userId: row.user_id,
    type: row.type,
    name: row.name,
    description: row.description,
    content: row.content,
    hash: row.anchored_hash ?? row.hash,
    contentDigest: row.hash,
    hashVersion: row.hash_version,
    issuerOrigin: row.issuer_origin,
    issuerDomain: row.issuer_domain,
    selectiveDisclosure:
      row.disclosable_content === null || row.disclosures === null
        ? null
        : { content: row.disclosable_content, disclosures: row.disclosures },
    fileHash: row.file_hash,
    issuedOn: row.issued_on,
    expires: row.expires,
    public: row.public,
    pinEncrypted: row.pin_encrypted,
    externalId: row.external_id,
    revokedAt: row.revoked_at,
    networkId: row.network_id,
    createdAt: row.created_at,
    trustpoints,
  };
}

function trustpointRow(certificateId: string, trustpoint: NewTrustpoint) {
  return {
    certificate_id: certificateId,
    type: trustpoint.type,
    hash: trustpoint.hash,
    timestamp: trustpoint.timestamp,
    network_id: trustpoint.networkId,
    anchor_record_id: trustpoint.anchorRecordId,
    signature: trustpoint.signature ?? null,
  };
}

/** The trustpoints of the given certificates in one query, each certificate's oldest first. */
async function loadTrustpoints(
  db: Queryable,
  certificateIds: readonly string[],
): Promise<Map<string, TrustpointRecord[]>> {
  const byCertificate = new Map<string, TrustpointRecord[]>(certificateIds.map((id) => [id, []]));
  if (certificateIds.length === 0) return byCertificate;
  const rows = await db('trustpoints')
    .whereIn('certificate_id', certificateIds)
    .orderBy(['certificate_id', 'timestamp'])
    .select<TrustpointRow[]>(trustpointColumns);
  const trustpoints = await withAnchoringStates(db, rows.map(toTrustpoint));
  rows.forEach((row, index) => {
    byCertificate.get(row.certificate_id)?.push(trustpoints[index] as TrustpointRecord);
  });
  return byCertificate;
}

async function withTrustpoints(db: Queryable, row: CertificateRow): Promise<CertificateRecord> {
  const trustpoints = await loadTrustpoints(db, [row.id]);
  return toCertificate(row, trustpoints.get(row.id) ?? []);
}

async function insertTrustpoint(
  db: Queryable,
  certificateId: string,
  trustpoint: NewTrustpoint,
): Promise<TrustpointRecord> {
  const [row] = await db('trustpoints')
    .insert(trustpointRow(certificateId, trustpoint))
    .returning<TrustpointRow[]>(trustpointColumns);
  if (row === undefined) {
    throw new Error(`inserting a trustpoint of certificate ${certificateId} returned no row`);
  }
  return toTrustpoint(row);
}

/**
 * Inserts the certificate and its first trustpoint, both or neither: one statement (the
 * trustpoint in a data-modifying CTE), so it needs no transaction or savepoint of its own and
 * costs one round trip. Pass the request's transaction to commit it with the rest of the request.
 *
 * Unique violations surface as the database error: classify them with `constraintViolation()`
 * (`certificates_user_hash_unique`, `certificates_user_external_id_unique`).
 */
export async function insertCertificate(
  db: Queryable,
  certificate: NewCertificate,
  trustpoint: NewTrustpoint,
): Promise<CertificateRecord> {
  // The trustpoint's foreign key is checked at the end of the statement, once both rows exist.
  const [row] = await db('certificates')
    .with('first_trustpoint', db('trustpoints').insert(trustpointRow(certificate.id, trustpoint)))
    .insert(certificateInsertRow(certificate))
    .returning<CertificateRow[]>(certificateColumns);
  if (row === undefined) {
    throw new Error(`inserting certificate ${certificate.id} returned no row`);
  }
  return toCertificate(row, [unanchoredTrustpoint(trustpoint)]);
}

/**
 * A certificate as its table's columns, JSON columns as values: the rows of a batch insert travel
 * as one JSON document (`insertCertificatesWithWrites`).
 */
function certificateColumnValues(certificate: NewCertificate) {
  const version2 = certificate.hashVersion === 2;
  if (version2 && (certificate.contentDigest === undefined || !certificate.selectiveDisclosure)) {
    throw new TypeError('a version 2 certificate needs its contentDigest and selectiveDisclosure');
  }
  return {
    id: certificate.id,
    cert_id: certificate.certId,
    user_id: certificate.userId,
    type: certificate.type,
    name: certificate.name,
    description: certificate.description,
    content: certificate.content,
    hash: certificate.contentDigest ?? certificate.hash,
    ...(version2 ? hashV2Values(certificate as CertificateHashV2) : {}),
    file_hash: certificate.fileHash,
    issued_on: certificate.issuedOn,
    expires: certificate.expires,
    public: certificate.public,
    pin_encrypted: certificate.pinEncrypted,
    external_id: certificate.externalId,
    network_id: certificate.networkId,
  };
}

/** A certificate's columns for a knex insert, its JSON columns as JSON text. */
function certificateInsertRow(certificate: NewCertificate) {
  const row = certificateColumnValues(certificate);
  return {
    ...row,
    // pg would send an array as a PostgreSQL array, not as JSON.
    content: JSON.stringify(row.content),
    ...(certificate.hashVersion === 2 ? hashV2Columns(certificate as CertificateHashV2) : {}),
  };
}

/** The columns of a version 2 hash (the unsalted digest stays in `hash`), JSON as values. */
function hashV2Values(hash: CertificateHashV2) {
  return {
    hash_version: 2,
    anchored_hash: hash.hash,
    issuer_origin: hash.issuerOrigin,
    issuer_domain: hash.issuerDomain ?? null,
    disclosable_content: hash.selectiveDisclosure.content,
    disclosures: hash.selectiveDisclosure.disclosures,
  };
}

/** `hashV2Values` for knex, JSON as text. */
function hashV2Columns(hash: CertificateHashV2) {
  const values = hashV2Values(hash);
  return {
    ...values,
    // pg would send an array as a PostgreSQL array, not as JSON.
    disclosable_content: JSON.stringify(values.disclosable_content),
    disclosures: JSON.stringify(values.disclosures),
  };
}

/**
 * A certificate just inserted, as `findCertificate` would read it (without trustpoints), made from
 * what was sent: the insert returns only what the database chose, its `created_at`.
 */
function insertedCertificate(certificate: NewCertificate, createdAt: Date): CertificateRecord {
  const version2 = certificate.hashVersion === 2;
  return {
    id: certificate.id,
    certId: certificate.certId,
    userId: certificate.userId,
    type: certificate.type,
    name: certificate.name,
    description: certificate.description,
    content: certificate.content,
    hash: version2 ? certificate.hash : (certificate.contentDigest ?? certificate.hash),
    contentDigest: certificate.contentDigest ?? certificate.hash,
    hashVersion: version2 ? 2 : 1,
    issuerOrigin: version2 ? (certificate.issuerOrigin ?? null) : null,
    issuerDomain: version2 ? (certificate.issuerDomain ?? null) : null,
    selectiveDisclosure: version2 ? (certificate.selectiveDisclosure ?? null) : null,
    fileHash: certificate.fileHash,
    issuedOn: certificate.issuedOn,
    expires: certificate.expires,
    public: certificate.public,
    pinEncrypted: certificate.pinEncrypted,
    externalId: certificate.externalId,
    revokedAt: null,
    networkId: certificate.networkId,
    createdAt,
    trustpoints: [],
  };
}

/**
 * Makes a stored version 1 certificate a version 2 one (its issuer re-anchors it): its anchored
 * hash becomes `hash.hash`, and the unsalted digest stays for repeats and lookups. False when it
 * is version 2 already (or gone). Conditional, so of concurrent requests exactly one wins.
 */
export async function reanchorCertificate(
  db: Queryable,
  certificateId: string,
  hash: CertificateHashV2,
): Promise<boolean> {
  const updated = await db('certificates')
    .where({ id: certificateId, hash_version: 1 })
    .update(hashV2Columns(hash));
  return updated === 1;
}

/** Why a certificate was not inserted: the user already has its hash, or its externalId. */
export type CertificateConflict = 'hash' | 'externalId';

/**
 * The insert of several certificates, sent as one JSON parameter, that skips each repeat of its
 * user's hash or externalId (in the table, or earlier in the list: rows go in in list order) and
 * returns the id, user and `created_at` of those it inserted.
 */
const certificatesFromJson = (filter = 'true') => `insert into certificates
         (id, cert_id, user_id, type, name, description, content, hash, hash_version,
          anchored_hash, issuer_origin, issuer_domain, disclosable_content, disclosures,
          file_hash, issued_on, expires, public, pin_encrypted, external_id, network_id)
  select c.id, c.cert_id, c.user_id, c.type, c.name, c.description, c.content, c.hash,
         coalesce(c.hash_version, 1), c.anchored_hash, c.issuer_origin, c.issuer_domain,
         c.disclosable_content, c.disclosures, c.file_hash, c.issued_on, c.expires, c.public,
         c.pin_encrypted, c.external_id, c.network_id
    from rows from (json_to_recordset(?::json) as (id uuid, cert_id text, user_id text,
         type text, name text, description text, content jsonb, hash text,
         hash_version smallint, anchored_hash text, issuer_origin text, issuer_domain text,
         disclosable_content jsonb, disclosures jsonb, file_hash text, issued_on bigint,
         expires bigint, public boolean, pin_encrypted text, external_id text,
         network_id text, claim_owner text)) with ordinality as c
   where ${filter}
   order by c.ordinality
  on conflict do nothing
  returning id, user_id, created_at`;

/**
 * Why the certificates of an insert that skipped repeats were skipped: a skipped certificate
 * repeats a row stored before the insert, or one earlier in the list (a later one in the list
 * never takes its place: it went in only because this one did not).
 */
async function conflictsOfSkipped(
  trx: Queryable,
  certificates: readonly NewCertificate[],
  inserted: ReadonlyMap<string, unknown>,
): Promise<Map<string, CertificateConflict>> {
  const conflicts = new Map<string, CertificateConflict>();
  if (inserted.size === certificates.length) return conflicts;
  const skipped = certificates.filter((certificate) => !inserted.has(certificate.id));
  const stored = await trx('certificates')
    .whereIn(
      ['user_id', 'hash'],
      skipped.map((certificate) => [certificate.userId, contentDigestOf(certificate)]),
    )
    .whereNotIn(
      'id',
      certificates.map((certificate) => certificate.id),
    )
    .select<{ user_id: string; hash: string }[]>('user_id', 'hash');
  const takenHashes = new Set(stored.map((row) => `${row.user_id}\n${row.hash}`));
  for (const certificate of certificates) {
    const key = `${certificate.userId}\n${contentDigestOf(certificate)}`;
    if (inserted.has(certificate.id)) takenHashes.add(key);
    else conflicts.set(certificate.id, takenHashes.has(key) ? 'hash' : 'externalId');
  }
  return conflicts;
}

/** A certificate to create with what is written once it is in (`insertCertificatesWithWrites`). */
export interface CertificateWithWrites {
  certificate: NewCertificate;
  /** Its trustpoints, Evidence first, each with the record queued to anchor it. */
  trustpoints: readonly {
    trustpoint: Omit<NewTrustpoint, 'anchorRecordId'>;
    record: AnchorRequest;
  }[];
  audit: NewAuditEntry;
  /**
   * The request's `Idempotency-Key`, committed by the statement naming the certificate's certID
   * (with `locksBalances` only): a claim lost to a retry leaves the certificate out.
   */
  idempotency?: IdempotencyClaim | undefined;
}

/** What `insertCertificatesWithWrites` did. */
export interface CertificatesWithWritesInsertion {
  /** The certificates inserted, by id, each with its trustpoints' anchoring records in order. */
  inserted: Map<string, { record: CertificateRecord; recordIds: number[] }>;
  /** Why each certificate not inserted was skipped. */
  conflicts: Map<string, CertificateConflict>;
  /** The certificates left out because their request's claim on its key was lost, by id. */
  keysLost: Set<string>;
  /** The certificates left out because their user has no credit balance at all, by id. */
  withoutBalance: Set<string>;
}

/**
 * Creates certificates in one statement, and for each one inserted (not a repeat of its user's
 * content or externalId) queues its trustpoints' records, stores its trustpoints, spends one
 * credit of its user and writes its audit entry: each a data-modifying part of the statement that
 * takes only the certificates the insert returned. The balance's check fails the statement when a
 * user would spend more than they hold.
 *
 * Run it inside a transaction that holds its users' balances locked (`lockCreditBalances`), or,
 * with `locksBalances`, on its own: the statement then locks the balances itself, in user order as
 * every creation and withdrawal takes them and before any insert, and commits as it ends. A whole
 * group in one round trip, no BEGIN or COMMIT.
 */
export async function insertCertificatesWithWrites(
  trx: Queryable,
  items: readonly CertificateWithWrites[],
  { locksBalances = false }: { locksBalances?: boolean } = {},
): Promise<CertificatesWithWritesInsertion> {
  if (items.length === 0) {
    return {
      inserted: new Map(),
      conflicts: new Map(),
      keysLost: new Set(),
      withoutBalance: new Set(),
    };
  }
  const keyed = items.filter((item) => item.idempotency !== undefined);
  if (keyed.length > 0 && !locksBalances) {
    throw new TypeError('idempotency keys are committed by a statement that locks the balances');
  }
  const certificates = items.map((item) => item.certificate);
  // Each trustpoint with its record's queue row, made once: queued, joined to the trustpoint,
  // and its id found by it.
  const byCertificate = items.map(({ certificate, trustpoints }) =>
    trustpoints.map(({ trustpoint, record }) => ({
      certificateId: certificate.id,
      trustpoint,
      queueRow: anchorRecordRow(record),
    })),
  );
  const entries = byCertificate.flat();
  const queue = entries.map(({ certificateId, queueRow }) => ({
    certificate_id: certificateId,
    ...queueRow,
  }));
  const stored = entries.map(({ certificateId, trustpoint, queueRow }) => ({
    certificate_id: certificateId,
    type: trustpoint.type,
    hash: trustpoint.hash,
    timestamp: trustpoint.timestamp,
    network_id: trustpoint.networkId,
    signature: trustpoint.signature ?? null,
    record_network_id: queueRow.network_id,
    record_kind: queueRow.kind,
    record_key: queueRow.record_key,
  }));
  const audit = items.map(({ certificate, audit: entry }) => ({
    certificate_id: certificate.id,
    ...auditEntryRow(entry),
  }));
  // Locked before the insert (an init plan of its filter), so that the statement waits for a
  // balance before any row of its own can make another transaction wait for it. A user without a
  // balance row gets nothing (the locked way reads a missing balance as 0 as well).
  const balancesLocked = locksBalances ? `${BALANCES_LOCKED},` : '';
  // The keys commit after the balances are held, as in the locked way; a certificate goes in only
  // if its request has no key or still holds it.
  const keysCommitted =
    keyed.length === 0 ? '' : `keys_committed as (${keysCommittedUpdate(BALANCES_HELD)}),`;
  const insert = certificatesFromJson(
    locksBalances
      ? `${BALANCES_HELD}
         and c.user_id in (select user_id from balances_locked)${
           keyed.length === 0
             ? ''
             : ' and (c.claim_owner is null or c.claim_owner in (select owner from keys_committed))'
         }`
      : undefined,
  );
  const result = await prepared(
    trx.raw<{ rows: InsertedOrQueued[] }>(
      `with ${balancesLocked} ${keysCommitted} certificates_in as (${insert}),
     queued as (
       insert into anchor_records
              (network_id, kind, record_key, hash, trustpoint_type, paid_by, record_timestamp)
       select r.network_id, r.kind, r.record_key, r.hash, r.trustpoint_type, r.paid_by,
              r.record_timestamp
         from json_to_recordset(?::json) as r(certificate_id uuid, network_id text, kind text,
              record_key text, hash text, trustpoint_type smallint, paid_by text,
              record_timestamp bigint)
        where r.certificate_id in (select id from certificates_in)
       returning id, network_id, kind, record_key
     ),
     trustpoints_in as (
       insert into trustpoints
              (certificate_id, type, hash, timestamp, network_id, anchor_record_id, signature)
       select t.certificate_id, t.type, t.hash, t.timestamp, t.network_id, queued.id, t.signature
         from json_to_recordset(?::json) as t(certificate_id uuid, type smallint, hash text,
              timestamp bigint, network_id text, signature text, record_network_id text,
              record_kind text, record_key text)
         join queued on queued.network_id = t.record_network_id and queued.kind = t.record_kind
              and queued.record_key = t.record_key
     ),
     credits_spent as (
       update credits set balance = credits.balance - spent.amount, updated_at = now()
         from (select user_id, count(*)::int as amount from certificates_in group by user_id)
              as spent
        where credits.user_id = spent.user_id
     ),
     audited as (
       insert into audit_log (actor_id, request_id, action, target, changes)
       select e.actor_id, e.request_id, e.action, e.target, e.changes
         from json_to_recordset(?::json) as e(certificate_id uuid, actor_id text,
              request_id text, action text, target text, changes jsonb)
        where e.certificate_id in (select id from certificates_in)
     )
     select id, created_at, null::bigint as queued_id, null::text as queued_network_id,
            null::text as queued_kind, null::text as queued_key, null::text as key_owner,
            null::text as balance_user
       from certificates_in
     union all
     select null, null, queued.id, queued.network_id, queued.kind, queued.record_key, null, null
       from queued
     ${keyed.length === 0 ? '' : 'union all select null, null, null, null, null, null, owner, null from keys_committed'}
     ${locksBalances ? 'union all select null, null, null, null, null, null, null, user_id from balances_locked' : ''}`,
      [
        ...(locksBalances ? [userIdsJson(certificates.map(({ userId }) => userId))] : []),
        ...(keyed.length === 0
          ? []
          : [
              keyCommitsJson(
                keyed.map(({ certificate, idempotency }) => ({
                  claim: idempotency as IdempotencyClaim,
                  resource: certificate.certId,
                })),
              ),
            ]),
        JSON.stringify(
          items.map(({ certificate, idempotency }) => ({
            ...certificateColumnValues(certificate),
            claim_owner: idempotency?.owner ?? null,
          })),
        ),
        JSON.stringify(queue),
        JSON.stringify(stored),
        JSON.stringify(audit),
      ] as Knex.RawBinding[],
    ),
    // The text's variants: balances locked or not, idempotency keys or none.
    `certificates-with-writes-${locksBalances ? 'locked' : 'unlocked'}${keyed.length === 0 ? '' : '-keyed'}`,
  );
  const recordIds = new Map<string, number>();
  const rows: { id: string; created_at: Date }[] = [];
  const keysHeld = new Set<string>();
  const balanced = new Set<string>();
  for (const row of result.rows) {
    if (row.balance_user !== null) balanced.add(row.balance_user);
    else if (row.key_owner !== null) keysHeld.add(row.key_owner);
    else if (row.queued_id === null)
      rows.push({ id: row.id as string, created_at: row.created_at as Date });
    else
      recordIds.set(
        `${row.queued_network_id}\n${row.queued_kind}\n${row.queued_key}`,
        row.queued_id,
      );
  }
  const itemOf = new Map(
    items.map(({ certificate }, index) => [
      certificate.id,
      { certificate, queued: byCertificate[index] ?? [] },
    ]),
  );
  const inserted = new Map<string, { record: CertificateRecord; recordIds: number[] }>();
  for (const row of rows) {
    const item = itemOf.get(row.id);
    if (item === undefined) throw new Error(`certificate ${row.id} was not in the insert`);
    const ids = item.queued.map(({ queueRow }) => {
      const { network_id, kind, record_key } = queueRow;
      const id = recordIds.get(`${network_id}\n${kind}\n${record_key}`);
      if (id === undefined) throw new Error(`anchor record ${record_key} was not inserted`);
      return id;
    });
    inserted.set(row.id, {
      record: insertedCertificate(item.certificate, row.created_at),
      recordIds: ids,
    });
  }
  // Owners are unique per request (as in `commitIdempotencyKeys`).
  const keysLost = new Set(
    keyed
      .filter(({ idempotency }) => !keysHeld.has(idempotency?.owner ?? ''))
      .map(({ certificate }) => certificate.id),
  );
  const withoutBalance = new Set(
    locksBalances
      ? certificates.filter(({ userId }) => !balanced.has(userId)).map(({ id }) => id)
      : [],
  );
  return {
    inserted,
    conflicts: await conflictsOfSkipped(
      trx,
      certificates.filter(({ id }) => !keysLost.has(id) && !withoutBalance.has(id)),
      inserted,
    ),
    keysLost,
    withoutBalance,
  };
}

/**
 * A row of `insertCertificatesWithWrites`'s answer: a certificate inserted (its id and
 * `created_at`) or a record queued (the rest).
 */
interface InsertedOrQueued {
  id: string | null;
  created_at: Date | null;
  queued_id: number | null;
  queued_network_id: string | null;
  queued_kind: string | null;
  queued_key: string | null;
  /** A key the statement committed: its claim's owner. */
  key_owner: string | null;
  /** A user whose balance the statement locked. */
  balance_user: string | null;
}

/**
 * Which of these certificates (not inserted) repeat a hash or externalId their user already has,
 * as far as this transaction sees: committed rows and its own. The hash when both.
 */
export async function findCertificateRepeats(
  db: Queryable,
  certificates: readonly NewCertificate[],
): Promise<Map<string, CertificateConflict>> {
  const repeats = new Map<string, CertificateConflict>();
  if (certificates.length === 0) return repeats;
  const withExternalId = certificates.filter((certificate) => certificate.externalId !== null);
  const rows = await db('certificates')
    .whereIn(
      ['user_id', 'hash'],
      certificates.map((certificate) => [certificate.userId, contentDigestOf(certificate)]),
    )
    .modify((query) => {
      if (withExternalId.length === 0) return;
      void query.orWhereIn(
        ['user_id', 'external_id'],
        withExternalId.map((certificate) => [certificate.userId, certificate.externalId]),
      );
    })
    .select<{ user_id: string; hash: string; external_id: string | null }[]>(
      'user_id',
      'hash',
      'external_id',
    );
  const hashes = new Set(rows.map((row) => `${row.user_id}\n${row.hash}`));
  const externalIds = new Set(rows.map((row) => `${row.user_id}\n${String(row.external_id)}`));
  for (const certificate of certificates) {
    if (hashes.has(`${certificate.userId}\n${contentDigestOf(certificate)}`)) {
      repeats.set(certificate.id, 'hash');
    } else if (
      certificate.externalId !== null &&
      externalIds.has(`${certificate.userId}\n${certificate.externalId}`)
    ) {
      repeats.set(certificate.id, 'externalId');
    }
  }
  return repeats;
}

/** What repeats compare: the unsalted digest, whatever the hash version. */
function contentDigestOf(certificate: NewCertificate): string {
  return certificate.contentDigest ?? certificate.hash;
}

/** A trustpoint exactly as just inserted: where it lands on chain is filled in later. */
export function unanchoredTrustpoint(trustpoint: NewTrustpoint): TrustpointRecord {
  return {
    type: trustpoint.type,
    hash: trustpoint.hash,
    timestamp: trustpoint.timestamp,
    networkId: trustpoint.networkId,
    smartContract: null,
    transactionHash: null,
    anchoredAt: null,
    anchorRecordId: trustpoint.anchorRecordId,
    status: 'pending',
    ...(trustpoint.signature === undefined ? {} : { signature: trustpoint.signature }),
  };
}

/**
 * Adds a later trustpoint (Revocation, Signature). A timestamp the certificate already has
 * surfaces as the database error (`trustpoints_certificate_timestamp_unique`).
 */
export async function addTrustpoint(
  db: Queryable,
  certificateId: string,
  trustpoint: NewTrustpoint,
): Promise<TrustpointRecord> {
  return insertTrustpoint(db, certificateId, trustpoint);
}

/**
 * Locks the certificate's row until the transaction ends, so that the trustpoints added to it
 * (and its revocation) are decided one request at a time; false when there is no such certificate.
 */
export async function lockCertificate(
  trx: Knex.Transaction,
  certificateId: string,
): Promise<boolean> {
  const row = await trx('certificates')
    .where('id', certificateId)
    .forUpdate()
    .first<{ id: string } | undefined>('id');
  return row !== undefined;
}

/**
 * Links a trustpoint to its entry in the anchoring queue, for callers that queue it after
 * inserting it. Throws when the certificate has no trustpoint at that timestamp: that is a bug
 * in the caller, and passing silently would leave the trustpoint unanchored.
 */
export async function setTrustpointAnchorRecord(
  db: Queryable,
  certificateId: string,
  timestamp: number,
  anchorRecordId: number,
): Promise<void> {
  const updated = await db('trustpoints')
    .where({ certificate_id: certificateId, timestamp })
    .update({ anchor_record_id: anchorRecordId });
  if (updated !== 1) {
    throw new Error(`certificate ${certificateId} has no trustpoint at timestamp ${timestamp}`);
  }
}

/**
 * One certificate with its trustpoints, or undefined.
 *
 * By `certId`, whoever owns it (the caller decides whether it may be seen; `ownerId` is
 * ignored). By `externalId`, `fileHash` or `hash` (64 lowercase hex), only among the
 * certificates of `ownerId`, which is then required; when several match, the newest by
 * issuedOn. By `hash`, the unsalted digest of the content or file finds a certificate of either
 * version, and so does a version 2 certificate's anchored hash.
 */
export async function findCertificate(
  db: Queryable,
  lookup: CertificateLookup,
  value: string,
  ownerId?: string,
): Promise<CertificateRecord | undefined> {
  const query =
    lookup === 'hash'
      ? db('certificates').where((either) => {
          void either.where('hash', value).orWhere('anchored_hash', value);
        })
      : db('certificates').where(lookupColumns[lookup], value);
  if (lookup !== 'certId') {
    if (ownerId === undefined) {
      throw new TypeError(`finding a certificate by ${lookup} needs the owner's id`);
    }
    query.andWhere('user_id', ownerId);
  }
  const row = await query
    .orderBy([
      { column: 'issued_on', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first<CertificateRow | undefined>(certificateColumns);
  return row === undefined ? undefined : withTrustpoints(db, row);
}

function assertPageBound(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

/**
 * The user's certificates matching the filter. Each condition is on a column of one of the
 * list indexes (`certificates_list_idx`, `..._by_type_idx`, `..._by_access_idx`), whose
 * (issued_on desc, id desc) order serves both directions.
 */
function matchingCertificates(db: Queryable, filter: CertificateListFilter): Knex.QueryBuilder {
  const query = db('certificates').where('user_id', filter.userId);
  if (filter.access !== undefined) query.andWhere('public', filter.access === 'public');
  if (filter.type !== undefined) query.andWhere('type', filter.type);
  if (filter.from !== undefined) query.andWhere('issued_on', '>=', filter.from);
  if (filter.to !== undefined) query.andWhere('issued_on', '<=', filter.to);
  if (filter.status !== undefined) {
    whereAnchoringStatus(query, filter.status, {
      table: 'trustpoints',
      ownerColumn: 'certificate_id',
      ownerId: 'certificates.id',
    });
  }
  return query;
}

/**
 * How many of the user's certificates match. Without a time window the trigger-kept
 * `certificate_counts` answer in one index read (at most eight rows per user); a window counts
 * the rows in it through the list indexes.
 */
async function countCertificates(db: Queryable, filter: CertificateListFilter): Promise<number> {
  if (filter.from === undefined && filter.to === undefined && filter.status === undefined) {
    const counters = db('certificate_counts').where('user_id', filter.userId);
    if (filter.access !== undefined) counters.andWhere('public', filter.access === 'public');
    if (filter.type !== undefined) counters.andWhere('type', filter.type);
    const row = await counters
      .sum({ total: 'total' })
      .first<{ total: number | string | null } | undefined>();
    return Number(row?.total ?? 0);
  }
  const row = await matchingCertificates(db, filter)
    .count({ total: '*' })
    .first<{ total: number } | undefined>();
  return row?.total ?? 0;
}

/**
 * A page of the user's certificates, each with its trustpoints, and how many match in all.
 * Three queries: the page, the page's trustpoints, the count. Pass a transaction if the count
 * must agree with the page under concurrent writes.
 */
export async function listCertificates(
  db: Queryable,
  filter: CertificateListFilter,
): Promise<{ certificates: CertificateRecord[]; total: number }> {
  assertPageBound('offset', filter.offset);
  assertPageBound('limit', filter.limit);
  const rows = await matchingCertificates(db, filter)
    .orderBy([
      { column: 'issued_on', order: filter.order },
      { column: 'id', order: filter.order },
    ])
    .offset(filter.offset)
    .limit(filter.limit)
    .select<CertificateRow[]>(certificateColumns);
  const trustpoints = await loadTrustpoints(
    db,
    rows.map((row) => row.id),
  );
  return {
    certificates: rows.map((row) => toCertificate(row, trustpoints.get(row.id) ?? [])),
    total: await countCertificates(db, filter),
  };
}

/**
 * Changes the access fields given (undefined leaves a field alone, null clears it) of one of the
 * owner's certificates; undefined when the owner has no such certificate. A duplicate
 * externalId surfaces as the database error (`certificates_user_external_id_unique`).
 */
export async function updateCertificateAccess(
  db: Queryable,
  certificateId: string,
  ownerId: string,
  changes: CertificateAccessChanges,
): Promise<CertificateRecord | undefined> {
  const patch: Partial<CertificateRow> = {};
  if (changes.public !== undefined) patch.public = changes.public;
  if (changes.pinEncrypted !== undefined) patch.pin_encrypted = changes.pinEncrypted;
  if (changes.externalId !== undefined) patch.external_id = changes.externalId;
  const owned = db('certificates').where({ id: certificateId, user_id: ownerId });
  const row =
    Object.keys(patch).length === 0
      ? await owned.first<CertificateRow | undefined>(certificateColumns)
      : (await owned.update(patch).returning<CertificateRow[]>(certificateColumns))[0];
  return row === undefined ? undefined : withTrustpoints(db, row);
}

/**
 * Marks the certificate revoked at `revokedAt` (ms) unless it already is; false when it already
 * was (or does not exist). Conditional, so of concurrent revocations exactly one wins.
 */
export async function markCertificateRevoked(
  db: Queryable,
  certificateId: string,
  revokedAt: number,
): Promise<boolean> {
  const updated = await db('certificates')
    .where('id', certificateId)
    .whereNull('revoked_at')
    .update({ revoked_at: revokedAt });
  return updated === 1;
}
