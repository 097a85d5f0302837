import jwt from 'jsonwebtoken';

import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/token-settings.js';
import { TEST_SECRET } from './fake-users.js';

/** A token as the launcher mints it, with any option overridden. */
export function signToken(subject: string, options: jwt.SignOptions = {}, secret = TEST_SECRET) {
  return jwt.sign({}, secret, {
    algorithm: 'HS256',
    subject,
    issuer: TOKEN_ISSUER,
    audience: TOKEN_AUDIENCE,
    expiresIn: '5m',
    ...options,
  });
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
export function tokenWithoutExpiry(subject: string): string {
  return jwt.sign({}, TEST_SECRET, {
    algorithm: 'HS256',
    subject,
    issuer: TOKEN_ISSUER,
    audience: TOKEN_AUDIENCE,
  });
}
