import { DomainError, type FieldError } from '@trustpoint/domain';

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
    const hint = missingTokenHint(header);
    throw new DomainError('missingToken', {
      detail: 'no bearer token in the Authorization header',
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return token;
}

const SEND_BEARER = 'send "Authorization: Bearer <token>"';

/**
 * What to do when an Authorization header holds no bearer token: a bare token (the scheme
 * forgotten), another scheme, or `Bearer` alone. No header at all needs no hint. Only the scheme
 * word the caller sent is repeated, never what follows it.
 */
function missingTokenHint(header: string | undefined): FieldError | undefined {
  const value = header?.trim() ?? '';
  if (value === '') return undefined;
  const field = 'Authorization';
  if (/^bearer$/i.test(value))
    return { field, error: `Bearer needs a token after it: ${SEND_BEARER}` };
  const scheme = /^([A-Za-z][\w!#$%&'*+.^`|~-]*) +\S/.exec(value)?.[1];
  if (scheme !== undefined && !/^bearer$/i.test(scheme)) {
    return { field, error: `The ${scheme} scheme is not accepted: ${SEND_BEARER}` };
  }
  if (scheme !== undefined) {
    return { field, error: `Bearer takes one token, without spaces: ${SEND_BEARER}` };
  }
  return { field, error: `The Bearer scheme is missing: ${SEND_BEARER}` };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export function bearerTokenIfAny(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
