import { createHmac } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

import { mintAccessToken, TOKEN_AUDIENCE, TOKEN_ISSUER } from '@trustpoint/http';

/** The spec's 401 messages (7.2). */
export type AuthenticationMessage =
  'Token is not provided' | 'Token is invalid' | 'Token is expired' | 'User credentials are wrong';

/** What each refused-token case needs from the API under test; made by its suite. */
export interface TokenCaseContext {
  /** The service's token secret. */
  secret: string;
  /** A user the API accepts, who may make the request (an administrator for the admin API). */
  userId: string;
  /** Another existing user, whose id a tampered token claims. */
  otherUserId: string;
  /** A user disabled through the admin API. */
  disabledUserId: string;
  /** API keys of `userId`: one revoked, one past its expiry. */
  revokedApiKey: string;
  expiredApiKey: string;
  /** An API key the disabled user made before being disabled. */
  disabledUserApiKey: string;
  /** A token of the client-credentials endpoint whose API key was revoked after it was issued. */
  revokedClientToken: string;
  /** An active API key of `userId`, to derive a malformed one (a wrong checksum) from. */
  activeApiKey: string;
  /** An external OpenID Connect issuer the API trusts, with the public key it serves. */
  oidc: { issuer: string; audience: string; publicKeyPem: string; publicJwk: JWK };
}

export interface RefusedTokenCase {
  name: string;
  /** The Authorization header to send; undefined sends none. */
  authorization(context: TokenCaseContext): Promise<string | undefined>;
  message: AuthenticationMessage;
  /** What the answer's `errors` tells the caller to do, when it says anything (a scheme missing). */
  hint?: string;
}

/** The answer's body for a refused-token case: the spec's 401, with its hint when it has one. */
export function refusedTokenBody(refused: RefusedTokenCase): Record<string, unknown> {
  return {
    statusCode: 401,
    type: 'Authentication Error',
    message: refused.message,
    ...(refused.hint === undefined
      ? {}
      : { errors: [{ field: 'Authorization', error: refused.hint }] }),
  };
}

const now = () => Math.floor(Date.now() / 1_000);
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** A JWT signed with HMAC under any key bytes, with any header and claims. */
function hmacToken(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key: Buffer | string,
  hash = 'sha256',
): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createHmac(hash, key).update(signingInput).digest('base64url');
  return `${signingInput}.${signature}`;
}

/** The claims of a service token for `subject`, as `mintAccessToken` writes them. */
function serviceClaims(subject: string, overrides: Record<string, unknown> = {}) {
  return {
    sub: subject,
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    iat: now(),
    exp: now() + 300,
    ...overrides,
  };
}

const bearer = (token: string) => Promise.resolve(`Bearer ${token}`);

function signed(
  context: TokenCaseContext,
  claims: Record<string, unknown>,
  alg = 'HS256',
): Promise<string> {
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg] ?? 'sha256';
  return bearer(hmacToken({ alg, typ: 'JWT' }, claims, Buffer.from(context.secret, 'utf8'), hash));
}

/** A correct checksum's last character changed: the shape of a key, not a key. */
function withWrongChecksum(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
}

/** HS/RS confusion: an HS256 token whose HMAC key is the issuer's public key, in some form. */
function confusedToken(context: TokenCaseContext, key: string): Promise<string> {
  const { oidc } = context;
  return bearer(
    hmacToken(
      { alg: 'HS256', typ: 'JWT', kid: oidc.publicJwk.kid },
      { sub: context.userId, iss: oidc.issuer, aud: oidc.audience, iat: now(), exp: now() + 300 },
      key,
    ),
  );
}

/**
 * Every way a bearer token must be refused, whichever API checks it: each case is a 401 with the
 * spec's body and the message given, and changes nothing. Run against every API by its suite.
 */
export const REFUSED_TOKEN_CASES: readonly RefusedTokenCase[] = [
  {
    name: 'no Authorization header',
    authorization: () => Promise.resolve(undefined),
    message: 'Token is not provided',
  },
  {
    name: 'another scheme (Basic)',
    authorization: () => Promise.resolve('Basic dXNlcjpwYXNz'),
    message: 'Token is not provided',
    hint: 'The Basic scheme is not accepted: send "Authorization: Bearer <token>"',
  },
  {
    name: 'Bearer without a token',
    authorization: () => Promise.resolve('Bearer '),
    message: 'Token is not provided',
    hint: 'Bearer needs a token after it: send "Authorization: Bearer <token>"',
  },
  {
    name: 'a service token without the Bearer scheme',
    authorization: async (context) =>
      mintAccessToken(context.secret, { subject: context.userId, ttlSeconds: 300 }),
    message: 'Token is not provided',
    hint: 'The Bearer scheme is missing: send "Authorization: Bearer <token>"',
  },
  {
    name: 'not a JWT (one part)',
    authorization: () => bearer('not-a-jwt'),
    message: 'Token is invalid',
  },
  {
    name: 'a JWT of two parts (signature removed)',
    authorization: async (context) => {
      const token = await mintAccessToken(context.secret, {
        subject: context.userId,
        ttlSeconds: 300,
      });
      return `Bearer ${token.split('.').slice(0, 2).join('.')}`;
    },
    message: 'Token is invalid',
  },
  {
    name: 'a JWT of four parts',
    authorization: async (context) =>
      `Bearer ${await mintAccessToken(context.secret, { subject: context.userId, ttlSeconds: 300 })}.AAAA`,
    message: 'Token is invalid',
  },
  {
    name: 'a header that is not base64url',
    authorization: async (context) => {
      const token = await mintAccessToken(context.secret, {
        subject: context.userId,
        ttlSeconds: 300,
      });
      return `Bearer ***${token.slice(token.indexOf('.'))}`;
    },
    message: 'Token is invalid',
  },
  {
    name: 'a payload that is not JSON (correctly signed)',
    authorization: (context) => {
      const input = `${base64url(JSON.stringify({ alg: 'HS256' }))}.${base64url('{"sub": "broken')}`;
      const signature = createHmac('sha256', Buffer.from(context.secret, 'utf8'))
        .update(input)
        .digest('base64url');
      return bearer(`${input}.${signature}`);
    },
    message: 'Token is invalid',
  },
  {
    name: 'alg none',
    authorization: (context) =>
      bearer(
        `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify(serviceClaims(context.userId)))}.`,
      ),
    message: 'Token is invalid',
  },
  {
    name: 'HS384 with the right secret',
    authorization: (context) => signed(context, serviceClaims(context.userId), 'HS384'),
    message: 'Token is invalid',
  },
  {
    name: 'HS512 with the right secret',
    authorization: (context) => signed(context, serviceClaims(context.userId), 'HS512'),
    message: 'Token is invalid',
  },
  {
    name: 'signed with another key',
    authorization: async (context) =>
      bearer(
        await mintAccessToken(`${context.secret}-another`, {
          subject: context.userId,
          ttlSeconds: 300,
        }),
      ),
    message: 'Token is invalid',
  },
  {
    name: "HS256 keyed with the OIDC issuer's RSA public key (PEM)",
    authorization: (context) => confusedToken(context, context.oidc.publicKeyPem),
    message: 'Token is invalid',
  },
  {
    name: "HS256 keyed with the OIDC issuer's RSA public key (JWK)",
    authorization: (context) => confusedToken(context, JSON.stringify(context.oidc.publicJwk)),
    message: 'Token is invalid',
  },
  {
    name: "HS256 keyed with the OIDC issuer's public key, claiming the service's issuer",
    authorization: (context) =>
      bearer(hmacToken({ alg: 'HS256' }, serviceClaims(context.userId), context.oidc.publicKeyPem)),
    message: 'Token is invalid',
  },
  {
    name: 'alg none, claiming the OpenID Connect issuer',
    authorization: (context) =>
      bearer(
        `${base64url(JSON.stringify({ alg: 'none' }))}.${base64url(
          JSON.stringify({
            sub: context.userId,
            iss: context.oidc.issuer,
            aud: context.oidc.audience,
            iat: now(),
            exp: now() + 300,
          }),
        )}.`,
      ),
    message: 'Token is invalid',
  },
  {
    name: 'RS256 signed by another key, embedded in the header (jwk), claiming the OpenID Connect issuer',
    authorization: async (context) => {
      const { privateKey, publicKey } = await generateKeyPair('RS256');
      const token = await new SignJWT({})
        .setProtectedHeader({
          alg: 'RS256',
          kid: context.oidc.publicJwk.kid,
          jwk: await exportJWK(publicKey),
        })
        .setSubject(context.userId)
        .setIssuer(context.oidc.issuer)
        .setAudience(context.oidc.audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      return `Bearer ${token}`;
    },
    message: 'Token is invalid',
  },
  {
    name: 'expired',
    authorization: (context) =>
      signed(context, serviceClaims(context.userId, { iat: now() - 600, exp: now() - 300 })),
    message: 'Token is expired',
  },
  {
    name: 'not yet valid (nbf in an hour)',
    authorization: (context) =>
      signed(context, serviceClaims(context.userId, { nbf: now() + 3_600 })),
    message: 'Token is invalid',
  },
  {
    name: 'no exp',
    authorization: (context) => signed(context, serviceClaims(context.userId, { exp: undefined })),
    message: 'Token is invalid',
  },
  {
    name: 'no sub',
    authorization: (context) => signed(context, serviceClaims(context.userId, { sub: undefined })),
    message: 'Token is invalid',
  },
  {
    name: 'another issuer',
    authorization: (context) =>
      signed(context, serviceClaims(context.userId, { iss: 'someone-else' })),
    message: 'Token is invalid',
  },
  {
    name: 'another audience',
    authorization: (context) =>
      signed(context, serviceClaims(context.userId, { aud: 'another-api' })),
    message: 'Token is invalid',
  },
  {
    name: 'tampered claims (another sub, the old signature)',
    authorization: async (context) => {
      const [header, , signature] = (
        await mintAccessToken(context.secret, { subject: context.userId, ttlSeconds: 300 })
      ).split('.');
      const claims = base64url(JSON.stringify(serviceClaims(context.otherUserId)));
      return `Bearer ${String(header)}.${claims}.${String(signature)}`;
    },
    message: 'Token is invalid',
  },
  {
    name: 'an unknown user',
    authorization: async (context) =>
      bearer(
        await mintAccessToken(context.secret, {
          subject: `nobody-${context.userId}`,
          ttlSeconds: 300,
        }),
      ),
    message: 'User credentials are wrong',
  },
  {
    name: 'a disabled user',
    authorization: async (context) =>
      bearer(
        await mintAccessToken(context.secret, { subject: context.disabledUserId, ttlSeconds: 300 }),
      ),
    message: 'User credentials are wrong',
  },
  {
    name: 'a revoked API key',
    authorization: (context) => bearer(context.revokedApiKey),
    message: 'Token is invalid',
  },
  {
    name: 'an expired API key',
    authorization: (context) => bearer(context.expiredApiKey),
    message: 'Token is expired',
  },
  {
    name: 'an API key of a disabled user',
    authorization: (context) => bearer(context.disabledUserApiKey),
    message: 'User credentials are wrong',
  },
  {
    name: 'a malformed API key (wrong checksum)',
    authorization: (context) => bearer(withWrongChecksum(context.activeApiKey)),
    message: 'Token is invalid',
  },
  {
    name: 'a client-credentials token of a since revoked API key',
    authorization: (context) => bearer(context.revokedClientToken),
    message: 'Token is invalid',
  },
];

/** A valid service token for the context's user: the control every suite runs first. */
export async function acceptedAuthorization(context: TokenCaseContext): Promise<string> {
  return `Bearer ${await mintAccessToken(context.secret, { subject: context.userId, ttlSeconds: 300 })}`;
}
