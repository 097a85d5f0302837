import {
  findApiKeyByDigest,
  findApiKeyById,
  findUserApiKey,
  insertApiKey,
  listActiveDescendantKeys,
  listUserApiKeys,
  recordApiKeyUse,
  revokeApiKeyTree,
  type ApiKeyRecord,
  type Queryable,
} from '@trustpoint/db';
import type { ApiScope } from '@trustpoint/domain';

import { API_KEY_PREFIX, apiKeyDigest, generateApiKey } from './api-key-format.js';

/** An API key as lists show it: never the key itself, which exists only in its creator's hands. */
export interface ApiKey extends ApiKeyRecord {
  /** The start of the key (`tp_live_<id>`), so its holder can tell which one it is. */
  prefix: string;
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

/**
 * `last_used_at` is written only when it is older than this: a client calling many times a second
 * costs one write a minute, not one per request.
 */
export const LAST_USED_PRECISION_MS = 60_000;

function withPrefix(record: ApiKeyRecord): ApiKey {
  return { ...record, prefix: `${API_KEY_PREFIX}${record.id}` };
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
  const stored = await insertApiKey(db, { ...apiKey, id, secretHash: apiKeyDigest(key) });
  return { apiKey: withPrefix(stored), key };
}

/** The user's keys, newest first: those not revoked, or all with `includeRevoked`. */
export async function listApiKeys(
  db: Queryable,
  userId: string,
  options: { includeRevoked?: boolean } = {},
): Promise<ApiKey[]> {
  return (await listUserApiKeys(db, userId, options)).map(withPrefix);
}

/** One key of the user (revoked or not), or undefined: another user's key is not found either. */
export async function findApiKey(
  db: Queryable,
  userId: string,
  id: string,
): Promise<ApiKey | undefined> {
  const record = await findUserApiKey(db, userId, id);
  return record === undefined ? undefined : withPrefix(record);
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
  const revoked = await revokeApiKeyTree(db, {
    userId: revocation.userId,
    id: revocation.id,
    revokedBy: revocation.revokedBy ?? null,
    at: revocation.at ?? new Date(),
  });
  const apiKey = await findApiKey(db, revocation.userId, revocation.id);
  if (apiKey === undefined) return undefined;
  const descendants = revoked.filter((id) => id !== revocation.id);
  return { ...apiKey, descendants: descendants.sort() };
}

/**
 * The keys made with the key (its children, theirs, ...) that are not revoked, with their scopes
 * and owners (another user's key made with an administrator's key is among them).
 */
export async function activeDescendants(
  db: Queryable,
  id: string,
): Promise<{ id: string; userId: string; parentKeyId: string; scopes: ApiScope[] }[]> {
  const keys = await listActiveDescendantKeys(db, id);
  return keys.map((key) => ({
    id: key.id,
    userId: key.userId,
    parentKeyId: key.parentKeyId ?? id,
    scopes: key.scopes,
  }));
}

/** What a presented key or key id turns out to be. */
export type ApiKeyStatus =
  | { status: 'active'; apiKey: ApiKey }
  | { status: 'expired'; apiKey: ApiKey }
  | { status: 'revoked'; apiKey: ApiKey }
  | { status: 'unknown' };

function statusOf(record: ApiKeyRecord | undefined, now: Date): ApiKeyStatus {
  if (record === undefined) return { status: 'unknown' };
  const apiKey = withPrefix(record);
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
  return statusOf(await findApiKeyByDigest(db, digest), now);
}

/** The key of this id, for a token exchanged for it: one primary-key probe, no cache. */
export async function apiKeyById(db: Queryable, id: string, now: Date): Promise<ApiKeyStatus> {
  return statusOf(await findApiKeyById(db, id), now);
}

/** Records a use of the key, unless one was recorded in the last minute. */
export async function touchApiKey(db: Queryable, apiKey: ApiKey, now: Date): Promise<void> {
  if (
    apiKey.lastUsedAt !== null &&
    now.getTime() - apiKey.lastUsedAt.getTime() < LAST_USED_PRECISION_MS
  ) {
    return;
  }
  await recordApiKeyUse(db, apiKey.id, now, new Date(now.getTime() - LAST_USED_PRECISION_MS));
}
