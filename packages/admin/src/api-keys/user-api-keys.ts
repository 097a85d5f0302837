import {
  countActiveApiKeys,
  lockUserApiKeys,
  recordAudit,
  retryTransientConflicts,
  type ChangeContext,
  type IdempotencyClaim,
} from '@trustpoint/db';
import { API_SCOPES, DomainError, type ApiScope } from '@trustpoint/domain';
import { commitIdempotentChange } from '@trustpoint/http';
import {
  apiKeyById,
  changeApiKeyScopes,
  createApiKey,
  DEFAULT_MAX_API_KEYS_PER_USER,
  listApiKeys,
  revokeApiKey,
  revokeApiKeyChange,
  widerThanCreator,
  type ApiKey,
} from '@trustpoint/identity';
import type { Knex } from 'knex';
import { refused } from '../admin-errors.js';
import { existingAccount } from '../users/user-accounts.js';

/** A user's keys, revoked ones too; 404 for an unknown user. */
export async function listUserApiKeys(knex: Knex, userId: string): Promise<ApiKey[]> {
  await existingAccount(knex, userId);
  return listApiKeys(knex, userId, { includeRevoked: true });
}

export interface UserApiKeyRequest {
  userId: string;
  name: string;
  expiresAt: Date | null;
  /** Every scope when absent. */
  scopes: readonly ApiScope[] | undefined;
  /** Milliseconds since the epoch. */
  now: () => number;
  /**
   * The key whose credential makes this one, on any account: the new key is its child (never
   * wider, expiring no later, revoked with it), read under the lock as revocations are.
   */
  parentKeyId?: string;
}

/**
 * Makes a key for a user, audited (`api-key.create`), under the user's key lock so that concurrent
 * creations cannot both pass the count of active keys (and under the locks of the parent key's
 * owners, which its revocation takes). A key made by an administrator's full credential has no
 * parent: it is the user's, bounded by nothing of the administrator's. `claim`: the request's
 * Idempotency-Key, marked done in the same transaction.
 */
export async function createUserApiKey(
  knex: Knex,
  request: UserApiKeyRequest,
  claim: IdempotencyClaim | undefined,
  context: ChangeContext,
): Promise<{ apiKey: ApiKey; key: string }> {
  const { userId, expiresAt } = request;
  return knex.transaction(async (trx) => {
    await existingAccount(trx, userId);
    await lockUserApiKeys(trx, userId, request.parentKeyId);
    if (
      (await countActiveApiKeys(trx, userId, new Date(request.now()))) >=
      DEFAULT_MAX_API_KEYS_PER_USER
    ) {
      throw refused(
        'body',
        `A user has at most ${String(DEFAULT_MAX_API_KEYS_PER_USER)} active API keys; revoke one first`,
      );
    }
    let scopes = request.scopes ?? API_SCOPES;
    let expires = expiresAt;
    if (request.parentKeyId !== undefined) {
      const parent = await apiKeyById(trx, request.parentKeyId, new Date(request.now()));
      if (parent.status !== 'active') {
        throw new DomainError('invalidToken', {
          detail: `API key ${request.parentKeyId} is ${parent.status}`,
        });
      }
      // The parent as it is now: it may have been narrowed since the request's credential was read.
      scopes = scopes.filter((scope) => parent.apiKey.scopes.includes(scope));
      if (scopes.length === 0) throw widerThanCreator(request.scopes ?? API_SCOPES);
      const parentExpiry = parent.apiKey.expiresAt;
      if (parentExpiry !== null && (expires === null || expires > parentExpiry)) {
        expires = parentExpiry;
      }
    }
    const made = await createApiKey(trx, {
      userId,
      name: request.name,
      expiresAt: expires,
      createdBy: context.actorId,
      scopes,
      ...(request.parentKeyId === undefined ? {} : { parentKeyId: request.parentKeyId }),
    });
    await commitIdempotentChange(trx, claim, made.apiKey.id);
    await recordAudit(trx, [
      {
        ...context,
        action: 'api-key.create',
        target: `api-key:${made.apiKey.id}`,
        changes: {
          userId,
          name: made.apiKey.name,
          expiresAt: made.apiKey.expiresAt?.toISOString() ?? null,
          scopes: made.apiKey.scopes,
          ...(request.parentKeyId === undefined ? {} : { parentKeyId: request.parentKeyId }),
        },
      },
    ]);
    return made;
  });
}

/**
 * Revokes the key a creation made whose answer was lost with its process (nobody received it),
 * audited with that reason; nothing when it is revoked already.
 */
export async function revokeUnansweredApiKey(
  knex: Knex,
  key: { userId: string; keyId: string; at: Date },
  context: ChangeContext,
): Promise<void> {
  await knex.transaction(async (trx) => {
    const revoked = await revokeApiKey(trx, {
      userId: key.userId,
      id: key.keyId,
      revokedBy: context.actorId,
      at: key.at,
    });
    if (revoked !== undefined) {
      await recordAudit(trx, [
        {
          ...context,
          action: 'api-key.revoke',
          target: `api-key:${key.keyId}`,
          changes: { userId: key.userId, reason: 'its creation was never answered' },
        },
      ]);
    }
  });
}

/** Sets a user's key's scopes, widening allowed (never past its parent's); 404 when no such key. */
export async function changeUserApiKeyScopes(
  knex: Knex,
  change: { userId: string; keyId: string; scopes: readonly ApiScope[]; now: () => number },
  context: ChangeContext,
): Promise<ApiKey> {
  // A deadlock PostgreSQL broke by rolling this back kept nothing: run it again.
  const changed = await retryTransientConflicts(() =>
    knex.transaction(async (trx) => {
      await existingAccount(trx, change.userId);
      return changeApiKeyScopes(trx, {
        userId: change.userId,
        keyId: change.keyId,
        scopes: change.scopes,
        mayWiden: true,
        ...context,
        now: new Date(change.now()),
      });
    }),
  );
  if (changed === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
  return changed.apiKey;
}

/**
 * Revokes a user's key and the keys made with it, audited (`api-key.revoke`, naming those); a key
 * revoked already is answered as it is and nothing is recorded. 404 when no such key.
 */
export async function revokeUserApiKey(
  knex: Knex,
  key: { userId: string; keyId: string; now: () => number },
  context: ChangeContext,
): Promise<ApiKey> {
  const revoked = await retryTransientConflicts(() =>
    knex.transaction((trx) =>
      revokeApiKeyChange(trx, {
        userId: key.userId,
        keyId: key.keyId,
        ...context,
        now: new Date(key.now()),
      }),
    ),
  );
  if (revoked === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
  return revoked;
}
