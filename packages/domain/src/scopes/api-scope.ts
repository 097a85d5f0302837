import { z } from 'zod';

/**
 * What a credential may do (OAuth 2.0 `scope`, RFC 6749 3.3), one word per kind of work:
 * - `read`: every read of the caller's own data (certificates, trustpoints, assets, evidences,
 *   shares, the account);
 * - `certify`: creating, changing the access of, revoking, signing and re-anchoring certificates;
 * - `track`: creating assets, registering evidences, sharing assets;
 * - `keys`: the caller's API keys (listing them too: they are credentials);
 * - `webhooks`: the caller's webhook endpoints and their deliveries;
 * - `admin`: the admin API (which still needs an administrator: the scope only narrows).
 * A credential without scopes (the service's own tokens, those of identity providers without a
 * `scope` naming any of these) may do all of them.
 */
export const API_SCOPES = ['read', 'certify', 'track', 'keys', 'webhooks', 'admin'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const apiScopeSchema = z.enum(API_SCOPES).meta({
  id: 'ApiScope',
  description:
    'What a credential may do: `read` (reads of your own data), `certify` (certificates), ' +
    '`track` (assets and evidences), `keys` (API keys), `webhooks` (webhook endpoints), ' +
    '`admin` (the admin API, administrators only)',
});

export function isApiScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value);
}

/** Scopes in their canonical order, once each. */
export function sortedScopes(scopes: Iterable<ApiScope>): ApiScope[] {
  const set = new Set(scopes);
  return API_SCOPES.filter((scope) => set.has(scope));
}

/**
 * An OAuth `scope` parameter (space-separated, RFC 6749 3.3): the scopes it names, or the words
 * that are no scope of this service.
 */
export function parseScopeParameter(
  text: string,
): { ok: true; scopes: ApiScope[] } | { ok: false; unknown: string[] } {
  const words = text.split(' ').filter((word) => word !== '');
  const unknown = words.filter((word) => !isApiScope(word));
  if (unknown.length > 0) return { ok: false, unknown };
  return { ok: true, scopes: sortedScopes(words as ApiScope[]) };
}

/** The scopes as an OAuth `scope` parameter. */
export function scopeParameter(scopes: Iterable<ApiScope>): string {
  return sortedScopes(scopes).join(' ');
}

/** The scopes of `wanted` that `held` lacks (none when `held` is undefined: full access). */
export function scopesBeyond(
  wanted: Iterable<ApiScope>,
  held: readonly ApiScope[] | undefined,
): ApiScope[] {
  if (held === undefined) return [];
  return sortedScopes(wanted).filter((scope) => !held.includes(scope));
}
