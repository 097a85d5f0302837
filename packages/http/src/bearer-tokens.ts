import type { Request } from 'express';

/**
 * Whatever turns a bearer token into the id of the user it stands for: the service's own tokens
 * (`AccessTokens`), or a mix of those, API keys and tokens of external identity providers
 * (`@trustpoint/identity`). A token that is not acceptable rejects with the 401 DomainError that
 * says why (`invalidToken`, `expiredToken`); the user's existence is checked by the caller.
 */
export interface BearerTokens {
  subject(token: string): Promise<string>;
}

/** Each request's token resolution, shared by the rate limit and `authenticate`. */
const resolved = new WeakMap<Request, { token: string; subject: Promise<string> }>();

/**
 * The subject of the request's bearer token, resolved at most once per request: the per-user rate
 * limit and `authenticate` both need it, and resolving some tokens costs a database query (API
 * keys) or a key fetch (external providers).
 */
export function requestSubject(req: Request, tokens: BearerTokens, token: string): Promise<string> {
  const known = resolved.get(req);
  if (known?.token === token) return known.subject;
  const subject = tokens.subject(token);
  // The rate limit may resolve a token that no route then awaits.
  subject.catch(() => undefined);
  resolved.set(req, { token, subject });
  return subject;
}
