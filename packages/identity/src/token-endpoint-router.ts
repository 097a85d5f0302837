import { parseScopeParameter, scopeParameter, scopesBeyond, textProblem } from '@trustpoint/domain';
import { clientAddress, TooManyRequestsError } from '@trustpoint/http';
import express, { Router, type Request, type Response } from 'express';

import { isApiKeyId } from './api-key-format.js';
import { ClientFailureBudget } from './client-failure-budget.js';
import type { Identities } from './identities.js';
import type { OAuthErrorCode } from './identity-schemas.js';

export const TOKEN_ENDPOINT_PATH = '/oauth/token';

/** Failed token requests per client address, and per client id, and minute before 429s. */
export const DEFAULT_TOKEN_FAILURES_PER_MINUTE = 20;

export interface TokenEndpointOptions {
  identities: Identities;
  failuresPerMinute?: number;
}

const BASIC = /^Basic +([A-Za-z0-9+/]+=*)\s*$/i;

/** RFC 6749 2.3.1: Basic credentials are form-urlencoded before base64. */
function basicCredentials(header: string): { clientId: string; secret: string } | undefined {
  const encoded = BASIC.exec(header)?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    const secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    return { clientId, secret };
  } catch {
    return undefined;
  }
}

function oauthError(res: Response, status: number, error: OAuthErrorCode, description: string) {
  if (status === 401)
    res.setHeader('WWW-Authenticate', 'Basic realm="trustpoint", charset="UTF-8"');
  res.status(status).json({ error, error_description: description });
}

function field(body: unknown, name: string): string | undefined {
  const value: unknown = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** What a token request comes to, before the failure budget has its say. */
type TokenOutcome =
  | { ok: true; accessToken: string; expiresIn: number; scope: string }
  | { ok: false; status: 400 | 401; error: OAuthErrorCode; description: string };

const refusal = (status: 400 | 401, error: OAuthErrorCode, description: string): TokenOutcome => ({
  ok: false,
  status,
  error,
  description,
});

const TOKEN_PARAMETERS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;

/**
 * Why a parameter of the request cannot be read as sent, or undefined: one sent twice, or one
 * outside the characters of the grant. Every parameter of this
 * grant is printable ASCII (RFC 6749 appendix A: VSCHAR, NQCHAR): U+0000 is refused by the shared
 * text rule, and anything else outside it (a percent-encoded surrogate decodes to U+FFFD) too.
 */
function unreadableParameter(req: Request): string | undefined {
  // RFC 6749 3.1: a parameter is sent once. Read as absent, a repeated `scope` would have granted
  // every scope of the key to a client that asked for some of them.
  const body = req.body as Record<string, unknown> | undefined;
  const repeated = TOKEN_PARAMETERS.find((name) => Array.isArray(body?.[name]));
  if (repeated !== undefined) return `${repeated}: Send it once (RFC 6749 3.1)`;
  const basic =
    req.headers.authorization === undefined
      ? undefined
      : basicCredentials(req.headers.authorization);
  const values: [string, string | undefined][] = [
    ...TOKEN_PARAMETERS.map((name): [string, string | undefined] => [name, field(req.body, name)]),
    ['client_id (HTTP Basic)', basic?.clientId],
    ['client_secret (HTTP Basic)', basic?.secret],
  ];
  for (const [name, value] of values) {
    if (value === undefined) continue;
    const problem =
      textProblem(value) ??
      (/^[\x20-\x7e]*$/.test(value) ? undefined : 'Must be printable ASCII (RFC 6749 appendix A)');
    if (problem !== undefined) return `${name}: ${problem}`;
  }
  return undefined;
}

/** The client id a request names (Basic user name or form `client_id`), if any. */
function namedClientId(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return basicCredentials(header)?.clientId;
  return field(req.body, 'client_id');
}

async function tokenOutcome(req: Request, identities: Identities): Promise<TokenOutcome> {
  if (!req.is('application/x-www-form-urlencoded')) {
    return refusal(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
  }
  const unreadable = unreadableParameter(req);
  if (unreadable !== undefined) return refusal(400, 'invalid_request', unreadable);
  const grantType = field(req.body, 'grant_type');
  if (grantType === undefined) return refusal(400, 'invalid_request', 'grant_type is missing');
  if (grantType !== 'client_credentials') {
    return refusal(400, 'unsupported_grant_type', 'Only client_credentials is supported');
  }
  const header = req.headers.authorization;
  const formId = field(req.body, 'client_id');
  const formSecret = field(req.body, 'client_secret');
  let credentials: { clientId: string; secret: string } | undefined;
  if (header !== undefined) {
    if (formSecret !== undefined) {
      return refusal(400, 'invalid_request', 'Send the client credentials one way only');
    }
    credentials = basicCredentials(header);
    if (credentials === undefined) {
      return refusal(401, 'invalid_client', 'The Authorization header is not HTTP Basic');
    }
  } else if (formId !== undefined && formSecret !== undefined) {
    credentials = { clientId: formId, secret: formSecret };
  } else {
    return refusal(401, 'invalid_client', 'Client credentials are missing');
  }
  const check = await identities.checkClientCredentials(credentials.clientId, credentials.secret);
  // One answer for every failure: which check failed is no business of a guesser.
  if (!check.ok) return refusal(401, 'invalid_client', 'Client authentication failed');
  // RFC 6749 3.3: the scopes asked for, some of the key's; all the key's when none is asked for.
  const asked = field(req.body, 'scope');
  let scopes = check.apiKey.scopes;
  if (asked !== undefined) {
    const parsed = parseScopeParameter(asked);
    if (!parsed.ok) {
      return refusal(400, 'invalid_scope', `Unknown scope: ${parsed.unknown.join(' ')}`);
    }
    const beyond = scopesBeyond(parsed.scopes, check.apiKey.scopes);
    if (beyond.length > 0) {
      return refusal(400, 'invalid_scope', `The key does not have the scope: ${beyond.join(' ')}`);
    }
    if (parsed.scopes.length === 0) return refusal(400, 'invalid_scope', 'scope is empty');
    scopes = parsed.scopes;
  }
  return {
    ok: true,
    ...(await identities.mintClientToken(check.apiKey, scopes)),
    scope: scopeParameter(scopes),
  };
}

/**
 * `POST /oauth/token`, the client-credentials grant (RFC 6749 4.4) with an API key as the client
 * secret and its id as the client id, by HTTP Basic or in the form body (never both). Answers a
 * short-lived JWT the APIs accept, bound to the key; errors are RFC 6749 5.2 bodies.
 *
 * Failed requests are counted per client address and per client id named: once either has
 * `failuresPerMinute` failures within a minute of its first, further failures of its requests are answered 429
 * (with `Retry-After`) instead of 401/400. A valid credential is always granted: keys hold about
 * 190 random bits, so the count is about noise and a guesser's cost rather than guessing, and
 * refusing valid clients for failures that are not theirs (others behind one NAT, a guesser naming
 * their client id) would let anyone lock them out.
 */
export function tokenEndpointRouter(options: TokenEndpointOptions): Router {
  const router = Router();
  const budget = new ClientFailureBudget({
    limit: options.failuresPerMinute ?? DEFAULT_TOKEN_FAILURES_PER_MINUTE,
    windowMs: 60_000,
  });
  router.post(
    TOKEN_ENDPOINT_PATH,
    express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }),
    async (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Pragma', 'no-cache');
      const outcome = await tokenOutcome(req, options.identities);
      if (outcome.ok) {
        res.status(200).json({
          access_token: outcome.accessToken,
          token_type: 'Bearer',
          expires_in: outcome.expiresIn,
          scope: outcome.scope,
        });
        return;
      }
      const clientId = namedClientId(req);
      const keys = [
        `address:${clientAddress(req)}`,
        ...(clientId !== undefined && isApiKeyId(clientId) ? [`client:${clientId}`] : []),
      ];
      const retryAfterSeconds = budget.exhausted(keys);
      if (retryAfterSeconds !== undefined) {
        throw new TooManyRequestsError('failed token requests', { retryAfterSeconds });
      }
      budget.recordFailure(keys);
      oauthError(res, outcome.status, outcome.error, outcome.description);
    },
  );
  return router;
}
