// Verifications per second of one HS256 access token with jsonwebtoken and with jose, as the
// service checked tokens before and after moving to jose (the secret as a KeyObject made once,
// algorithm, issuer and audience pinned), and the APIs' remembered-token cache that spares
// repeated tokens either. Run: pnpm --filter @trustpoint/bench jwt
import { createSecretKey, randomBytes } from 'node:crypto';
import { AccessTokens } from '@trustpoint/http';
import { jwtVerify, SignJWT } from 'jose';
import jwt from 'jsonwebtoken';

const ISSUER = 'trustpoint';
const AUDIENCE = 'trustpoint-api';
const ROUND_MS = 2_000;
const ROUNDS = 3;

/** Operations per second of `verify`, run back to back for `ROUND_MS`. */
async function rate(verify: () => unknown): Promise<number> {
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < ROUND_MS) {
    for (let i = 0; i < 100; i += 1) await verify();
    count += 100;
  }
  return (count * 1_000) / (performance.now() - start);
}

async function main(): Promise<void> {
  const secret = randomBytes(32).toString('base64url');
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const remembered = new AccessTokens({ secret, issuer: ISSUER, audience: AUDIENCE });
  const now = Math.floor(Date.now() / 1_000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('bench-user')
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 3_600)
    .sign(key);

  const libraries: Record<string, () => unknown> = {
    'jsonwebtoken 9.0.3': () =>
      jwt.verify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE }),
    'jose 5.10.0': () =>
      jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ['exp', 'sub'],
      }),
    // What the APIs do with a token they have accepted before: no verification at all.
    'AccessTokens, remembered': () => remembered.verify(token),
  };
  const best: Record<string, number> = {};
  // Alternating rounds, best of each: a busy neighbour on the machine hurts both alike.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, verify] of Object.entries(libraries)) {
      best[name] = Math.max(best[name] ?? 0, await rate(verify));
    }
  }
  console.log(
    `HS256 verifications per second, best of ${String(ROUNDS)} rounds of ${String(ROUND_MS)} ms (Node ${process.version}):`,
  );
  for (const [name, perSecond] of Object.entries(best)) {
    console.log(
      `  ${name.padEnd(26)} ${Math.round(perSecond).toLocaleString('en')}/s  (${(1e6 / perSecond).toFixed(1)} µs each)`,
    );
  }
}

void main();
