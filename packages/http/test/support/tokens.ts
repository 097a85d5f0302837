import { createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';

import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/token-settings.js';
import { TEST_SECRET } from './fake-users.js';

export interface TestTokenOptions {
  algorithm?: string;
  audience?: string;
  issuer?: string;
  /** Seconds from now; negative for a token already expired. */
  expiresIn?: number;
}

/** A token as the launcher mints it, with any option overridden. */
export async function signToken(
  subject: string,
  options: TestTokenOptions = {},
  secret = TEST_SECRET,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: options.algorithm ?? 'HS256' })
    .setSubject(subject)
    .setIssuer(options.issuer ?? TOKEN_ISSUER)
    .setAudience(options.audience ?? TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 300))
    .sign(createSecretKey(Buffer.from(secret, 'utf8')));
}

/** An unsigned token (`alg: none`) that would pass if the algorithm were not pinned. */
export function unsignedToken(subject: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const header = encode({ alg: 'none', typ: 'JWT' });
  const payload = encode({
    sub: subject,
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    iat: now,
    exp: now + 300,
  });
  return `${header}.${payload}.`;
}

/** A correctly signed token that never expires. */
export async function tokenWithoutExpiry(subject: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .sign(createSecretKey(Buffer.from(TEST_SECRET, 'utf8')));
}
