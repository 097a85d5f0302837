import { rateLimit } from '@trustpoint/http';
import express, { Router, type Response } from 'express';

import type { Identities } from './identities.js';
import type { OAuthErrorCode } from './identity-schemas.js';

export const TOKEN_ENDPOINT_PATH = '/oauth/token';

/** Failed token requests allowed per client address and minute, against guessing keys. */
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

/**
 * `POST /oauth/token`, the client-credentials grant (RFC 6749 4.4) with an API key as the client
 * secret and its id as the client id, by HTTP Basic or in the form body (never both). Answers a
 * short-lived JWT the APIs accept, bound to the key; errors are RFC 6749 5.2 bodies. Failed
 * requests are limited per client address.
 */
export function tokenEndpointRouter(options: TokenEndpointOptions): Router {
  const router = Router();
  router.post(
    TOKEN_ENDPOINT_PATH,
    rateLimit({
      windowMs: 60_000,
      limit: options.failuresPerMinute ?? DEFAULT_TOKEN_FAILURES_PER_MINUTE,
      failuresOnly: true,
    }),
    express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }),
    async (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Pragma', 'no-cache');
      if (!req.is('application/x-www-form-urlencoded')) {
        oauthError(
          res,
          400,
          'invalid_request',
          'The body must be application/x-www-form-urlencoded',
        );
        return;
      }
      const grantType = field(req.body, 'grant_type');
      if (grantType === undefined) {
        oauthError(res, 400, 'invalid_request', 'grant_type is missing');
        return;
      }
      if (grantType !== 'client_credentials') {
        oauthError(res, 400, 'unsupported_grant_type', 'Only client_credentials is supported');
        return;
      }
      const header = req.headers.authorization;
      const formId = field(req.body, 'client_id');
      const formSecret = field(req.body, 'client_secret');
      let credentials: { clientId: string; secret: string } | undefined;
      if (header !== undefined) {
        if (formSecret !== undefined) {
          oauthError(res, 400, 'invalid_request', 'Send the client credentials one way only');
          return;
        }
        credentials = basicCredentials(header);
        if (credentials === undefined) {
          oauthError(res, 401, 'invalid_client', 'The Authorization header is not HTTP Basic');
          return;
        }
      } else if (formId !== undefined && formSecret !== undefined) {
        credentials = { clientId: formId, secret: formSecret };
      } else {
        oauthError(res, 401, 'invalid_client', 'Client credentials are missing');
        return;
      }
      const check = await options.identities.checkClientCredentials(
        credentials.clientId,
        credentials.secret,
      );
      if (!check.ok) {
        // One answer for every failure: which check failed is no business of a guesser.
        oauthError(res, 401, 'invalid_client', 'Client authentication failed');
        return;
      }
      const { accessToken, expiresIn } = await options.identities.mintClientToken(check.apiKey);
      res
        .status(200)
        .json({ access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn });
    },
  );
  return router;
}
