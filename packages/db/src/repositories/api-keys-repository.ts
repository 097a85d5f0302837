import { API_SCOPES, parseScopeParameter, scopeParameter, type ApiScope } from '@trustpoint/domain';
import type { Queryable } from '../queryable.js';
import { lockUser } from './users-repository.js';

/** An API key as stored, without its digest: the key itself exists only in its creator's hands. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  createdAt: Date;
  /** Who made it: the user, or the administrator who made it for them. */
  createdBy: string | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
  /** What the key (and every token exchanged for it) may do. */
  scopes: ApiScope[];
  /** The key it was made with, whose scopes and expiry bound it and whose revocation ends it. */
  parentKeyId: string | null;
}

export interface NewApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** The digest a presented key is looked up by; never the key. */
  secretHash: string;
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

function scopesOf(row: ApiKeyRow): ApiScope[] {
  const parsed = parseScopeParameter(row.scope);
  // The table's check admits only known scopes.
  if (!parsed.ok)
    throw new Error(`API key ${row.id} has unknown scopes ${parsed.unknown.join(' ')}`);
  return parsed.scopes;
}

function fromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
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
 * Stores a key. A user that does not exist is a foreign-key violation
 * (`constraintViolation(error).kind === 'foreign-key'`).
 */
export async function insertApiKey(db: Queryable, apiKey: NewApiKeyRecord): Promise<ApiKeyRecord> {
  const [row] = await db('api_keys')
    .insert({
      id: apiKey.id,
      user_id: apiKey.userId,
      name: apiKey.name,
      secret_hash: apiKey.secretHash,
      created_by: apiKey.createdBy ?? null,
      expires_at: apiKey.expiresAt ?? null,
      scope: scopeParameter(apiKey.scopes ?? API_SCOPES),
      parent_key_id: apiKey.parentKeyId ?? null,
    })
    .returning<ApiKeyRow[]>(COLUMNS);
  if (row === undefined) throw new Error('inserting an API key returned no row');
  return fromRow(row);
}

/** The user's keys, newest first: those not revoked, or all with `includeRevoked`. */
export async function listUserApiKeys(
  db: Queryable,
  userId: string,
  options: { includeRevoked?: boolean } = {},
): Promise<ApiKeyRecord[]> {
  const query = db('api_keys').where('user_id', userId);
  if (options.includeRevoked !== true) void query.whereNull('revoked_at');
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select<ApiKeyRow[]>(COLUMNS);
  return rows.map(fromRow);
}

/**
 * Takes the user's row lock for the rest of the transaction, so that concurrent creations of the
 * user's keys count and insert one after another: without it each could count below the limit
 * before any inserts. Call first in the transaction that counts (`countActiveApiKeys`) and creates.
 * With `parentKeyId` (a key made with another key, maybe another user's) it also takes the locks
 * of the users owning that key and its ancestors, which their revocations and narrowings take: a
 * child is never made beside a revocation of its tree that would miss it. All in user id order,
 * so that two creations never wait on each other.
 */
export async function lockUserApiKeys(
  trx: Queryable,
  userId: string,
  parentKeyId?: string,
): Promise<void> {
  const owners = new Set([userId]);
  if (parentKeyId !== undefined) {
    // A key's owner and parent never change: the ancestry read before the locks holds after them.
    const result = await trx.raw<{ rows: { user_id: string }[] }>(
      `with recursive ancestry as (
         select id, user_id, parent_key_id from api_keys where id = ?
         union
         select parent.id, parent.user_id, parent.parent_key_id
           from api_keys parent join ancestry on parent.id = ancestry.parent_key_id
       )
       select distinct user_id from ancestry`,
      [parentKeyId],
    );
    for (const row of result.rows) owners.add(row.user_id);
  }
  for (const owner of [...owners].sort()) await lockUser(trx, owner);
}

/**
 * Takes the row locks of the key's owner and of every user owning a key made with it (its
 * children, theirs, ..., revoked or not), in user id order as `lockUserApiKeys` takes them, before
 * the tree is changed. A revocation or narrowing of the tree then comes after every creation in
 * flight under it (which holds the owner's lock), after any other change of a tree sharing an
 * owner, and never waits in a circle with one (which PostgreSQL breaks by aborting one, 40P01):
 * revoking a child of another user's key inside the change takes no lock it does not hold.
 * The owners are read again under the locks: a key made under the tree just before them, by a
 * user not read, has its owner locked after the others (the transaction is then the one place a
 * deadlock may remain, which `retryTransientConflicts` runs again). Nothing when there is no such key.
 */
export async function lockApiKeyTree(trx: Queryable, userId: string, keyId: string): Promise<void> {
  const locked = new Set<string>();
  for (;;) {
    const result = await trx.raw<{ rows: { user_id: string }[] }>(
      `with recursive tree as (
         select id, user_id from api_keys where id = ? and user_id = ?
         union
         select child.id, child.user_id from api_keys child join tree on child.parent_key_id = tree.id
       )
       select distinct user_id from tree`,
      [keyId, userId],
    );
    const owners = new Set([userId, ...result.rows.map((row) => row.user_id)]);
    const missing = [...owners].filter((owner) => !locked.has(owner)).sort();
    if (missing.length === 0) return;
    for (const owner of missing) {
      await lockUser(trx, owner);
      locked.add(owner);
    }
  }
}

/** Keys of the user that are neither revoked nor expired at `now`. */
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
export async function findUserApiKey(
  db: Queryable,
  userId: string,
  id: string,
): Promise<ApiKeyRecord | undefined> {
  const row = await db('api_keys')
    .where({ id, user_id: userId })
    .first<ApiKeyRow | undefined>(COLUMNS);
  return row === undefined ? undefined : fromRow(row);
}

/**
 * Revokes the user's key and every key made with it (its children, theirs, ..., whoever owns
 * them), in one statement, after every creation in flight of the user's keys or of keys under it
 * (they hold the user's row lock, taken here with those of the tree's other owners, in id order:
 * `lockApiKeyTree`), so that the tree holds every child made with a key of it. Keys revoked already
 * keep their first revocation. The ids this call revoked (the key's own among them unless it was
 * revoked already); none when the user has no such key.
 */
export async function revokeApiKeyTree(
  db: Queryable,
  revocation: { userId: string; id: string; revokedBy: string | null; at: Date },
): Promise<string[]> {
  await lockApiKeyTree(db, revocation.userId, revocation.id);
  const result = await db.raw<{ rows: { id: string }[] }>(
    `with recursive tree as (
       select id from api_keys where id = ? and user_id = ?
       union
       select child.id from api_keys child join tree on child.parent_key_id = tree.id
     )
     update api_keys set revoked_at = ?, revoked_by = ?
      where id in (select id from tree) and revoked_at is null
     returning id`,
    [revocation.id, revocation.userId, revocation.at, revocation.revokedBy],
  );
  return result.rows.map((row) => row.id);
}

/**
 * The keys made with the key (its children, theirs, ...) that are not revoked, by id; whoever owns
 * them (an administrator's key making another user's key is its parent).
 */
export async function listActiveDescendantKeys(db: Queryable, id: string): Promise<ApiKeyRecord[]> {
  const result = await db.raw<{ rows: ApiKeyRow[] }>(
    `with recursive tree as (
       select ${COLUMNS.join(', ')} from api_keys
        where parent_key_id = ? and revoked_at is null
       union
       select ${COLUMNS.map((column) => `child.${column}`).join(', ')}
         from api_keys child join tree on child.parent_key_id = tree.id
        where child.revoked_at is null
     )
     select ${COLUMNS.join(', ')} from tree order by id`,
    [id],
  );
  return result.rows.map(fromRow);
}

/** Sets the scopes of some keys (a key and its descendants, whoever owns them), in one statement. */
export async function setApiKeyScopes(
  db: Queryable,
  scopes: ReadonlyMap<string, readonly ApiScope[]>,
): Promise<void> {
  if (scopes.size === 0) return;
  await db.raw(
    `update api_keys set scope = changed.scope
       from jsonb_to_recordset(?::jsonb) as changed(id text, scope text)
      where api_keys.id = changed.id`,
    [JSON.stringify([...scopes].map(([id, wanted]) => ({ id, scope: scopeParameter(wanted) })))],
  );
}

/** The key with this digest, revoked and expired ones too: one index probe, no cache. */
export async function findApiKeyByDigest(
  db: Queryable,
  digest: string,
): Promise<ApiKeyRecord | undefined> {
  const row = await db('api_keys')
    .where('secret_hash', digest)
    .first<ApiKeyRow | undefined>(COLUMNS);
  return row === undefined ? undefined : fromRow(row);
}

/** The key of this id, whoever's, revoked and expired ones too: one primary-key probe, no cache. */
export async function findApiKeyById(db: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await db('api_keys').where('id', id).first<ApiKeyRow | undefined>(COLUMNS);
  return row === undefined ? undefined : fromRow(row);
}

/**
 * Records a use of the key at `usedAt`, unless its last recorded use is `staleBefore` or later
 * (then another request recorded it meanwhile): one conditional update.
 */
export async function recordApiKeyUse(
  db: Queryable,
  id: string,
  usedAt: Date,
  staleBefore: Date,
): Promise<void> {
  await db('api_keys')
    .where('id', id)
    .where(
      (stale) => void stale.whereNull('last_used_at').orWhere('last_used_at', '<', staleBefore),
    )
    .update({ last_used_at: usedAt });
}
