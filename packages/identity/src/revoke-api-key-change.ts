import { recordAudit, type ChangeContext, type Queryable } from '@trustpoint/db';
import type { ApiScope } from '@trustpoint/domain';

import { findApiKey, revokeApiKey, type ApiKey } from './api-keys.js';
import { assertWithinCredential } from './change-api-key-scopes.js';

export interface ApiKeyRevocation extends ChangeContext {
  userId: string;
  keyId: string;
  /**
   * The scopes of the credential asking (undefined: full access, the user's own token or an
   * administrator): a key wider than it is not revoked (403).
   */
  actingScopes?: readonly ApiScope[] | undefined;
  now: Date;
}

/**
 * Revokes a user's API key and every key made with it, with one audit entry naming them, inside
 * the caller's transaction; undefined when the user has no such key. Revoking a revoked key again
 * changes nothing and records nothing. The user's own routes and the administration's share it.
 */
export async function revokeApiKeyChange(
  trx: Queryable,
  revocation: ApiKeyRevocation,
): Promise<ApiKey | undefined> {
  const { userId, keyId } = revocation;
  const before = await findApiKey(trx, userId, keyId);
  if (before === undefined) return undefined;
  assertWithinCredential(before, revocation.actingScopes, 'revoke');
  const revoked = await revokeApiKey(trx, {
    userId,
    id: keyId,
    revokedBy: revocation.actorId,
    at: revocation.now,
  });
  if (revoked === undefined || before.revokedAt !== null) return revoked;
  await recordAudit(trx, [
    {
      actorId: revocation.actorId,
      requestId: revocation.requestId,
      action: 'api-key.revoke',
      target: `api-key:${keyId}`,
      changes: {
        userId,
        ...(revoked.descendants.length === 0 ? {} : { descendants: revoked.descendants }),
      },
    },
  ]);
  return revoked;
}
