import type { ApiScope } from '@trustpoint/domain';
import type { Request } from 'express';

/** What a verified bearer token stands for. */
export interface Credential {
  /** The user id. */
  subject: string;
  /**
   * What it may do; undefined for full access (the service's own tokens, those of identity
   * providers that name no scope of this service).
   */
  scopes?: readonly ApiScope[] | undefined;
  /** The API key behind it: the key itself, or the key a token was exchanged for. */
  apiKeyId?: string | undefined;
  /** When it stops working: a key's expiry (null: never), a token's `exp`. */
  expiresAt?: Date | null | undefined;
}

/**
 * Whatever turns a bearer token into the credential it stands for: the service's own tokens
 * (`AccessTokens`), or a mix of those, API keys and tokens of external identity providers
 * (`@trustpoint/identity`). A token that is not acceptable rejects with the 401 DomainError that
 * says why (`invalidToken`, `expiredToken`); the user's existence is checked by the caller.
 */
export interface BearerTokens {
  credential(token: string): Promise<Credential>;
}

/** Each request's token resolution, shared by the rate limit and `authenticate`. */
const resolved = new WeakMap<Request, { token: string; credential: Promise<Credential> }>();

/**
 * The credential of the request's bearer token, resolved at most once per request: the per-user
 * rate limit and `authenticate` both need it, and resolving some tokens costs a database query
 * (API keys) or a key fetch (external providers).
 */
export function requestCredential(
  req: Request,
  tokens: BearerTokens,
  token: string,
): Promise<Credential> {
  const known = resolved.get(req);
  if (known?.token === token) return known.credential;
  const credential = tokens.credential(token);
  // The rate limit may resolve a token that no route then awaits.
  credential.catch(() => undefined);
  resolved.set(req, { token, credential });
  return credential;
}

/** The user id of the request's bearer token (`requestCredential(...).subject`). */
export async function requestSubject(
  req: Request,
  tokens: BearerTokens,
  token: string,
): Promise<string> {
  return (await requestCredential(req, tokens, token)).subject;
}
