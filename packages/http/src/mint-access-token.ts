import { createSecretKey } from 'node:crypto';
import { scopeParameter, type ApiScope } from '@trustpoint/domain';
import { SignJWT } from 'jose';

import { TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER } from './token-settings.js';

export interface AccessTokenClaims {
  /** The user the token stands for. */
  subject: string;
  /** How long it lives. */
  ttlSeconds: number;
  /** The client it is issued to (`client_id`, RFC 9068): an API key's id. */
  clientId?: string;
  /** What it may do (the `scope` claim, RFC 9068); every scope when absent. */
  scopes?: readonly ApiScope[];
}

/**
 * An access token the APIs accept (`AccessTokens`): HS256 under the service's secret, with the
 * service's issuer and audience, a subject and an expiry. The launcher, the admin CLI and the
 * client-credentials endpoint all mint through this, so they cannot drift from what is checked.
 */
export async function mintAccessToken(secret: string, claims: AccessTokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1_000);
  return new SignJWT({
    ...(claims.clientId === undefined ? {} : { client_id: claims.clientId }),
    ...(claims.scopes === undefined ? {} : { scope: scopeParameter(claims.scopes) }),
  })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
    .setSubject(claims.subject)
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + claims.ttlSeconds)
    .sign(createSecretKey(Buffer.from(secret, 'utf8')));
}
