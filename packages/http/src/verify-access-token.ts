import type { KeyObject } from 'node:crypto';
import { DomainError } from '@trustpoint/domain';
import jwt from 'jsonwebtoken';

import { TOKEN_ALGORITHM } from './token-settings.js';

export interface TokenVerification {
  /**
   * The shared secret as a KeyObject (`createSecretKey`), made once: given a string, jsonwebtoken
   * tries to parse it as a public key and then builds a new KeyObject on every verification.
   */
  key: KeyObject;
  issuer: string;
  audience: string;
}

/** What a valid access token says: its user id (`sub`) and expiry (`exp`, seconds). */
export interface VerifiedToken {
  subject: string;
  expiresAt: number;
}

/**
 * The user id (`sub`) and expiry of a valid access token. An expired token is `expiredToken`;
 * every other failure (signature, algorithm, issuer, audience, shape) is `invalidToken`, so a
 * caller learns nothing about which check failed.
 */
export function verifyAccessToken(token: string, verification: TokenVerification): VerifiedToken {
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, verification.key, {
      algorithms: [TOKEN_ALGORITHM],
      issuer: verification.issuer,
      audience: verification.audience,
    });
  } catch (error) {
    // jsonwebtoken checks the signature before the expiry, so only a genuine token is "expired".
    if (error instanceof jwt.TokenExpiredError) {
      throw new DomainError('expiredToken', { detail: 'access token expired', cause: error });
    }
    throw new DomainError('invalidToken', { detail: 'access token rejected', cause: error });
  }
  if (typeof payload === 'string' || typeof payload.sub !== 'string' || payload.sub === '') {
    throw new DomainError('invalidToken', { detail: 'access token has no subject' });
  }
  // jsonwebtoken enforces `exp` only when present; a token that never expires is not accepted.
  if (typeof payload.exp !== 'number') {
    throw new DomainError('invalidToken', { detail: 'access token has no expiry' });
  }
  return { subject: payload.sub, expiresAt: payload.exp };
}
