import { DomainError } from '@trustpoint/domain';

// The scheme name is case-insensitive (RFC 7235 section 2.1); the token is one run of
// non-whitespace characters.
const BEARER = /^Bearer +(\S+)\s*$/i;

/**
 * The token of an `Authorization: Bearer <token>` header. A missing or empty header, another
 * scheme (`Basic ...`) or `Bearer` without a token all mean the caller sent no token (spec 7.2).
 */
export function bearerToken(header: string | undefined): string {
  const token = bearerTokenIfAny(header);
  if (token === undefined) {
    throw new DomainError('missingToken', {
      detail: 'no bearer token in the Authorization header',
    });
  }
  return token;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export function bearerTokenIfAny(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
