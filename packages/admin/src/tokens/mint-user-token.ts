import { recordAudit, type ChangeContext } from '@trustpoint/db';
import type { ApiScope } from '@trustpoint/domain';
import { mintAccessToken } from '@trustpoint/http';
import type { Knex } from 'knex';
import { refused } from '../admin-errors.js';
import { existingAccount } from '../users/user-accounts.js';

export interface UserTokenRequest {
  userId: string;
  expiresInSeconds: number;
  /** The secret the service's access tokens are signed with. */
  tokenSecret: string;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** What the token may do; every scope when absent. */
  scopes?: readonly ApiScope[];
  /** The API key the token is tied to (its `client_id`): it stops working when the key does. */
  apiKeyId?: string;
}

/**
 * Mints an access token for a user who is not disabled. The mint is audited (`token.mint`) before
 * the token is made: a token that exists is always in the log (one that failed to be made may be).
 */
export async function mintUserToken(
  knex: Knex,
  request: UserTokenRequest,
  context: ChangeContext,
): Promise<{ accessToken: string; expiresAt: Date }> {
  const { userId, expiresInSeconds } = request;
  const account = await existingAccount(knex, userId);
  if (account.disabledAt !== null) {
    throw refused('path.id', 'The user is disabled: a token for it would be refused');
  }
  const expiresAt = new Date(Math.floor(request.now() / 1_000) * 1_000 + expiresInSeconds * 1_000);
  await recordAudit(knex, [
    {
      ...context,
      action: 'token.mint',
      target: `user:${userId}`,
      changes: {
        expiresAt: expiresAt.toISOString(),
        ...(request.scopes === undefined ? {} : { scopes: request.scopes }),
        ...(request.apiKeyId === undefined ? {} : { apiKeyId: request.apiKeyId }),
      },
    },
  ]);
  const accessToken = await mintAccessToken(request.tokenSecret, {
    subject: userId,
    ttlSeconds: expiresInSeconds,
    ...(request.scopes === undefined ? {} : { scopes: request.scopes }),
    ...(request.apiKeyId === undefined ? {} : { clientId: request.apiKeyId }),
  });
  return { accessToken, expiresAt };
}
