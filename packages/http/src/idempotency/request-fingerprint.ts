import { createHash } from 'node:crypto';
import { canonicalJson, DomainError } from '@trustpoint/domain';
import type { Request } from 'express';
import type { Credential } from '../bearer-tokens.js';

/**
 * What makes two requests with the same key the same request: the method, the path, the query, a
 * digest of the body and the credential that sent it (its API key and scopes), as one SHA-256.
 * JSON bodies count by their canonical form (RFC 8785), so a client that serializes its retry
 * with other spacing or member order is not refused; multipart bodies count by their parts (the
 * route digests the fields and the file bytes, never the boundary, which differs on every
 * attempt). A retry comes from the client that sent the request; another credential of the same
 * user (a key holding only `read`, a token narrowed to it) sending the same key and body gets
 * 422, never the answer the first one was given (a new key's secret, a webhook's signing secret).
 */
export function requestFingerprint(
  req: Request,
  credential: Credential | undefined,
  bodyDigest: string,
): string {
  return sha256(
    canonicalJson({
      method: req.method,
      path: `${req.baseUrl}${req.path}`,
      query: textOf(req.query),
      body: bodyDigest,
      // A full-access credential (the user's own token) names neither key nor scopes.
      apiKey: credential?.apiKeyId ?? null,
      scopes: credential?.scopes === undefined ? null : [...credential.scopes].sort(),
    }),
  );
}

/**
 * The digest of a parsed JSON body (none: the empty string's). A body nested too deep to be
 * serialized again (JSON.parse takes depths JSON.stringify cannot) is refused with 400, as the
 * route's validation would refuse it, rather than failing with 500.
 */
export function jsonBodyDigest(body: unknown): string {
  if (body === undefined) return sha256('');
  try {
    return sha256(textOf(body));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new DomainError('validation', {
      detail: 'a JSON body too deeply nested to identify its request',
      errors: [{ field: 'body', error: 'Nested too deeply' }],
    });
  }
}

/**
 * A parsed value's canonical JSON; one canonical JSON refuses (a lone surrogate in a string)
 * counts by its plain JSON text, which is as stable for the same input.
 */
function textOf(value: unknown): string {
  const plain: unknown = JSON.parse(JSON.stringify(value ?? null));
  try {
    return canonicalJson(plain);
  } catch {
    return JSON.stringify(plain);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
