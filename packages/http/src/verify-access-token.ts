import type { KeyObject } from 'node:crypto';
import { DomainError, parseScopeParameter, type ApiScope } from '@trustpoint/domain';
import { errors, jwtVerify, type JWTPayload } from 'jose';

import { TOKEN_ALGORITHM } from './token-settings.js';

export interface TokenVerification {
  /** The shared secret as a KeyObject (`createSecretKey`), made once rather than per token. */
  key: KeyObject;
  issuer: string;
  audience: string;
}

/** What a valid access token says: its user id (`sub`) and expiry (`exp`, seconds). */
export interface VerifiedToken {
  subject: string;
  expiresAt: number;
  /**
   * The client the token was issued to (`client_id`, RFC 9068), for a token from the
   * client-credentials endpoint: the API key it was exchanged for.
   */
  clientId?: string;
  /** What the token may do (its `scope` claim, RFC 9068); undefined without one: full access. */
  scopes?: ApiScope[];
}

/**
 * The user id (`sub`) and expiry of a valid access token. An expired token is `expiredToken`;
 * every other failure (signature, algorithm, issuer, audience, shape) is `invalidToken`, so a
 * caller learns nothing about which check failed.
 */
export async function verifyAccessToken(
  token: string,
  verification: TokenVerification,
): Promise<VerifiedToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, verification.key, {
      algorithms: [TOKEN_ALGORITHM],
      issuer: verification.issuer,
      audience: verification.audience,
      // A token that never expires is not accepted.
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    // jose checks the signature before the claims, so only a genuine token is "expired".
    if (error instanceof errors.JWTExpired) {
      throw new DomainError('expiredToken', { detail: 'access token expired', cause: error });
    }
    throw new DomainError('invalidToken', { detail: 'access token rejected', cause: error });
  }
  const { sub, exp, client_id: clientId, scope } = payload;
  if (typeof sub !== 'string' || sub === '' || typeof exp !== 'number') {
    throw new DomainError('invalidToken', { detail: 'access token has no subject or expiry' });
  }
  if (clientId !== undefined && typeof clientId !== 'string') {
    throw new DomainError('invalidToken', { detail: 'access token has a malformed client_id' });
  }
  let scopes: ApiScope[] | undefined;
  if (scope !== undefined) {
    const parsed = typeof scope === 'string' ? parseScopeParameter(scope) : undefined;
    if (parsed?.ok !== true) {
      throw new DomainError('invalidToken', { detail: 'access token has a malformed scope' });
    }
    scopes = parsed.scopes;
  }
  return {
    subject: sub,
    expiresAt: exp,
    ...(clientId === undefined ? {} : { clientId }),
    ...(scopes === undefined ? {} : { scopes }),
  };
}
