import type { RequestListener } from 'node:http';
import type { Queryable } from '@trustpoint/db';
import supertest from 'supertest';

import { mintAccessToken } from '@trustpoint/http';
import type { OidcIssuerDouble } from '@trustpoint/test-doubles/oidc-issuer';
import type { TokenCaseContext } from './refused-tokens.js';

export interface TokenCaseContextInput {
  app: RequestListener;
  /** Where the API's `/api-keys` and `/oauth/token` are, e.g. `/cert/v2`. */
  basePath: string;
  secret: string;
  userId: string;
  otherUserId: string;
  /** A user still active: it gets an API key, then `disableUser` disables it. */
  disabledUserId: string;
  /** Disables a user as an administrator does (the admin API where the API serves it). */
  disableUser(id: string): Promise<void>;
  oidc: OidcIssuerDouble;
  /** The audience the API expects of the issuer's tokens. */
  oidcAudience: string;
  /** Moves an API key's expiry into the past (the API only accepts future expiries). */
  expireApiKey(id: string): Promise<void>;
}

interface CreatedKey {
  id: string;
  key: string;
}

/**
 * Builds what the refused-token cases need through the API's own routes: API keys of the user
 * made with `POST /api-keys`, one revoked with `DELETE /api-keys/{keyId}` after a token of the
 * client-credentials endpoint was obtained for it, one expired; and a key of the user disabled.
 */
export async function tokenCaseContext(input: TokenCaseContextInput): Promise<TokenCaseContext> {
  const agent = supertest(input.app);
  const authorization = `Bearer ${await mintAccessToken(input.secret, { subject: input.userId, ttlSeconds: 600 })}`;
  const newKey = async (name: string, userId = input.userId): Promise<CreatedKey> => {
    const response = await agent
      .post(`${input.basePath}/api-keys`)
      .set(
        'Authorization',
        userId === input.userId
          ? authorization
          : `Bearer ${await mintAccessToken(input.secret, { subject: userId, ttlSeconds: 60 })}`,
      )
      .send({ name });
    if (response.status !== 201) {
      throw new Error(`POST /api-keys answered ${String(response.status)}`);
    }
    return (response.body as { data: CreatedKey }).data;
  };
  const revoke = async (key: CreatedKey) => {
    const response = await agent
      .delete(`${input.basePath}/api-keys/${key.id}`)
      .set('Authorization', authorization);
    if (response.status !== 200) {
      throw new Error(`DELETE /api-keys answered ${String(response.status)}`);
    }
  };
  const active = await newKey('active');
  const revoked = await newKey('revoked');
  const exchanged = await agent
    .post(`${input.basePath}/oauth/token`)
    .auth(revoked.id, revoked.key)
    .type('form')
    .send({ grant_type: 'client_credentials' });
  if (exchanged.status !== 200) {
    throw new Error(`POST /oauth/token answered ${String(exchanged.status)}`);
  }
  await revoke(revoked);
  const expired = await newKey('expired');
  await input.expireApiKey(expired.id);
  const disabledUsers = await newKey('of a user then disabled', input.disabledUserId);
  await input.disableUser(input.disabledUserId);
  return {
    secret: input.secret,
    userId: input.userId,
    otherUserId: input.otherUserId,
    disabledUserId: input.disabledUserId,
    revokedApiKey: revoked.key,
    expiredApiKey: expired.key,
    disabledUserApiKey: disabledUsers.key,
    revokedClientToken: (exchanged.body as { access_token: string }).access_token,
    activeApiKey: active.key,
    oidc: {
      issuer: input.oidc.issuer,
      audience: input.oidcAudience,
      publicKeyPem: input.oidc.publicKeyPem,
      publicJwk: input.oidc.publicJwk,
    },
  };
}

/** An `expireApiKey` on the API's database: the key's expiry set a second in the past, as time would. */
export function expireApiKeyIn(knex: Queryable): (id: string) => Promise<void> {
  return async (id) => {
    await knex('api_keys')
      .where('id', id)
      .update({ expires_at: new Date(Date.now() - 1_000) });
  };
}
