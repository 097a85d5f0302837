import type { Queryable } from '@trustpoint/db';
import { API_SCOPES, parseScopeParameter, scopeParameter, type ApiScope } from '@trustpoint/domain';

import { apiKeyDigest, generateApiKey } from './api-key-format.js';

/** An API key as lists show it: never the key itself, which exists only in its creator's hands. */
export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  /** The start of the key (`tp_live_<id>`), so its holder can tell which one it is. */
  prefix: string;
  createdAt: Date;
  /** Who made it: the user, or the administrator who made it for them. */
  createdBy: string | null;
  expiresAt: Date | null;
  /** Last successful use, to the minute (see `LAST_USED_PRECISION_MS`). */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
  /** What the key (and every token exchanged for it) may do. */
  scopes: ApiScope[];
  /** The key it was made with, whose scopes and expiry bound it and whose revocation ends it. */
  parentKeyId: string | null;
}

export interface NewApiKey {
  userId: string;
  name: string;
  expiresAt?: Date | null | undefined;
  createdBy?: string | null | undefined;
  /** Every scope when absent. */
  scopes?: readonly ApiScope[] | undefined;
  parentKeyId?: string | null | undefined;
}

interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
  scope: string;
  parent_key_id: string | null;
}

const COLUMNS = [
  'id',
  'user_id',
  'name',
  'created_by',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
  'revoked_by',
  'scope',
  'parent_key_id',
];

/**
 * `last_used_at` is written only when it is older than this: a client calling many times a second
 * costs one write a minute, not one per request.
 */
export const LAST_USED_PRECISION_MS = 60_000;

function scopesOf(row: ApiKeyRow): ApiScope[] {
  const parsed = parseScopeParameter(row.scope);
  // The table's check admits only known scopes.
  if (!parsed.ok)
    throw new Error(`API key ${row.id} has unknown scopes ${parsed.unknown.join(' ')}`);
  return parsed.scopes;
}

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: `tp_live_${row.id}`,
    createdAt: row.created_at,
    createdBy: row.created_by,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    revokedBy: row.revoked_by,
    scopes: scopesOf(row),
    parentKeyId: row.parent_key_id,
  };
}

/**
 * Makes a key for the user; `key` is the only time the key is seen. A user that does not exist is
 * a foreign-key violation (`constraintViolation(error).kind === 'foreign-key'`).
 */
export async function createApiKey(
  db: Queryable,
  apiKey: NewApiKey,
): Promise<{ apiKey: ApiKey; key: string }> {
  const { id, key } = generateApiKey();
  const [row] = await db('api_keys')
    .insert({
      id,
      user_id: apiKey.userId,
      name: apiKey.name,
      secret_hash: apiKeyDigest(key),
      created_by: apiKey.createdBy ?? null,
      expires_at: apiKey.expiresAt ?? null,
      scope: scopeParameter(apiKey.scopes ?? API_SCOPES),
      parent_key_id: apiKey.parentKeyId ?? null,
    })
    .returning<ApiKeyRow[]>(COLUMNS);
  if (row === undefined) throw new Error('inserting an API key returned no row');
  return { apiKey: toApiKey(row), key };
}

/** The user's keys, newest first: those not revoked, or all with `includeRevoked`. */
export async function listApiKeys(
  db: Queryable,
  userId: string,
  options: { includeRevoked?: boolean } = {},
): Promise<ApiKey[]> {
  const query = db('api_keys').where('user_id', userId);
  if (options.includeRevoked !== true) void query.whereNull('revoked_at');
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select<ApiKeyRow[]>(COLUMNS);
  return rows.map(toApiKey);
}

/**
 * Takes the user's row lock for the rest of the transaction, so that concurrent creations of the
 * user's keys count and insert one after another: without it each could count below the limit
 * before any inserts. Call first in the transaction that counts (`countActiveApiKeys`) and creates.
 */
export async function lockUserKeys(trx: Queryable, userId: string): Promise<void> {
  await trx('users').where('id', userId).forUpdate().first('id');
}

/** Keys of the user that are neither revoked nor expired. */
export async function countActiveApiKeys(
  db: Queryable,
  userId: string,
  now: Date,
): Promise<number> {
  const row = await db('api_keys')
    .where('user_id', userId)
    .whereNull('revoked_at')
    .where((expiry) => void expiry.whereNull('expires_at').orWhere('expires_at', '>', now))
    .count<{ count: string | number }[]>('* as count')
    .first();
  return Number(row?.count ?? 0);
}

/** One key of the user (revoked or not), or undefined: another user's key is not found either. */
export async function findApiKey(
  db: Queryable,
  userId: string,
  id: string,
): Promise<ApiKey | undefined> {
  const row = await db('api_keys')
    .where({ id, user_id: userId })
    .first<ApiKeyRow | undefined>(COLUMNS);
  return row === undefined ? undefined : toApiKey(row);
}

/**
 * Revokes the user's key and every key made with it (its children, theirs, ...), in one
 * statement, at once for every process on this database: each use of a key (and of a token
 * exchanged for it) reads its row. Revoking a revoked key keeps the first revocation, and still
 * revokes descendants that are not. Undefined when the user has no such key; `descendants` are
 * the ids of the keys this call revoked beside it.
 */
export async function revokeApiKey(
  db: Queryable,
  revocation: { userId: string; id: string; revokedBy?: string | null | undefined; at?: Date },
): Promise<(ApiKey & { descendants: string[] }) | undefined> {
  // After every creation of the user's keys in flight (they hold this lock), so that the tree
  // read below holds every child made with a key of it.
  await lockUserKeys(db, revocation.userId);
  const result = await db.raw<{ rows: { id: string }[] }>(
    `with recursive tree as (
       select id from api_keys where id = ? and user_id = ?
       union
       select child.id from api_keys child join tree on child.parent_key_id = tree.id
     )
     update api_keys set revoked_at = ?, revoked_by = ?
      where id in (select id from tree) and revoked_at is null
     returning id`,
    [revocation.id, revocation.userId, revocation.at ?? new Date(), revocation.revokedBy ?? null],
  );
  const apiKey = await findApiKey(db, revocation.userId, revocation.id);
  if (apiKey === undefined) return undefined;
  const descendants = result.rows.map((row) => row.id).filter((id) => id !== revocation.id);
  return { ...apiKey, descendants: descendants.sort() };
}

/** The keys made with the key (its children, theirs, ...) that are not revoked, with their scopes. */
export async function activeDescendants(
  db: Queryable,
  userId: string,
  id: string,
): Promise<{ id: string; parentKeyId: string; scopes: ApiScope[] }[]> {
  const result = await db.raw<{ rows: ApiKeyRow[] }>(
    `with recursive tree as (
       select ${COLUMNS.join(', ')} from api_keys
        where parent_key_id = ? and user_id = ? and revoked_at is null
       union
       select ${COLUMNS.map((column) => `child.${column}`).join(', ')}
         from api_keys child join tree on child.parent_key_id = tree.id
        where child.revoked_at is null
     )
     select ${COLUMNS.join(', ')} from tree order by id`,
    [id, userId],
  );
  return result.rows.map((row) => {
    const apiKey = toApiKey(row);
    return { id: apiKey.id, parentKeyId: apiKey.parentKeyId ?? id, scopes: apiKey.scopes };
  });
}

/** Sets the scopes of some of the user's keys, in one statement. */
export async function setApiKeyScopes(
  db: Queryable,
  userId: string,
  scopes: ReadonlyMap<string, readonly ApiScope[]>,
): Promise<void> {
  if (scopes.size === 0) return;
  await db.raw(
    `update api_keys set scope = changed.scope
       from jsonb_to_recordset(?::jsonb) as changed(id text, scope text)
      where api_keys.id = changed.id and api_keys.user_id = ?`,
    [
      JSON.stringify([...scopes].map(([id, wanted]) => ({ id, scope: scopeParameter(wanted) }))),
      userId,
    ],
  );
}

/** What a presented key or key id turns out to be. */
export type ApiKeyStatus =
  | { status: 'active'; apiKey: ApiKey }
  | { status: 'expired'; apiKey: ApiKey }
  | { status: 'revoked'; apiKey: ApiKey }
  | { status: 'unknown' };

function statusOf(row: ApiKeyRow | undefined, now: Date): ApiKeyStatus {
  if (row === undefined) return { status: 'unknown' };
  const apiKey = toApiKey(row);
  if (apiKey.revokedAt !== null) return { status: 'revoked', apiKey };
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= now) return { status: 'expired', apiKey };
  return { status: 'active', apiKey };
}

/** The key with this digest (`apiKeyDigest(key)`): one index probe, no cache. */
export async function apiKeyByDigest(
  db: Queryable,
  digest: string,
  now: Date,
): Promise<ApiKeyStatus> {
  const row = await db('api_keys')
    .where('secret_hash', digest)
    .first<ApiKeyRow | undefined>(COLUMNS);
  return statusOf(row, now);
}

/** The key of this id, for a token exchanged for it: one primary-key probe, no cache. */
export async function apiKeyById(db: Queryable, id: string, now: Date): Promise<ApiKeyStatus> {
  const row = await db('api_keys').where('id', id).first<ApiKeyRow | undefined>(COLUMNS);
  return statusOf(row, now);
}

/** Records a use of the key, unless one was recorded in the last minute. */
export async function touchApiKey(db: Queryable, apiKey: ApiKey, now: Date): Promise<void> {
  if (
    apiKey.lastUsedAt !== null &&
    now.getTime() - apiKey.lastUsedAt.getTime() < LAST_USED_PRECISION_MS
  ) {
    return;
  }
  await db('api_keys')
    .where('id', apiKey.id)
    .where(
      (stale) =>
        void stale
          .whereNull('last_used_at')
          .orWhere('last_used_at', '<', new Date(now.getTime() - LAST_USED_PRECISION_MS)),
    )
    .update({ last_used_at: now });
}
