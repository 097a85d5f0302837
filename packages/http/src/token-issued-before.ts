import { decodeJwt } from 'jose';

/**
 * Whether a verified bearer token was issued at or before `instant` (a user's `tokensValidAfter`).
 * A JWT's `iat` counts whole seconds, so a token from the second of `instant` may be older than it
 * and counts as issued before; a JWT without `iat` cannot show it is newer and counts too. An API
 * key is no issued token (it is checked on every use, and revoked on its own): never.
 */
export function tokenIssuedBefore(token: string, instant: Date): boolean {
  let issuedAt: unknown;
  try {
    issuedAt = decodeJwt(token).iat;
  } catch {
    return false;
  }
  if (typeof issuedAt !== 'number' || !Number.isFinite(issuedAt)) return true;
  return Math.floor(issuedAt) <= Math.floor(instant.getTime() / 1_000);
}
