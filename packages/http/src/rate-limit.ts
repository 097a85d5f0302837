import type { RequestHandler } from 'express';
import { rateLimit as expressRateLimit, type Store } from 'express-rate-limit';

import { bearerTokenIfAny } from './bearer-token.js';
import { requestSubject, type BearerTokens } from './bearer-tokens.js';
import { clientAddress } from './client-address.js';
import { optionalCurrentUser } from './current-user.js';
import { TooManyRequestsError } from './too-many-requests.js';

export interface RateLimitOptions {
  windowMs: number;
  /** Requests allowed per key and window. */
  limit: number;
  /**
   * The API's bearer tokens: a request with a valid token counts against its user even where the
   * limit runs before the route authenticates. Without it only an authenticated caller is.
   */
  tokens?: BearerTokens;
  /**
   * Counts only requests answered with an error status (>= 400), e.g. failed sign-ins, so callers
   * that succeed are never held back while guessing is.
   */
  failuresOnly?: boolean;
  /**
   * Where the counts live: process memory by default (each process counts on its own), or a store
   * every process shares (`DatabaseRateLimitStore`), so N processes enforce one limit. One store
   * per limiter.
   */
  store?: Store | undefined;
}

/**
 * At most `limit` requests per `windowMs` per caller. Callers are counted by user id (users behind
 * one NAT do not share a budget): the authenticated user when mounted after `authenticate`, else
 * the subject of a valid bearer token (`tokens`, resolved once per request with `authenticate`); anonymous callers and invalid tokens are counted
 * by IP (the client behind a load balancer under `trust proxy`). Counts live in process memory, so
 * each API instance counts on its own, unless `store` shares them.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  return expressRateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skipSuccessfulRequests: options.failuresOnly ?? false,
    ...(options.store === undefined ? {} : { store: options.store }),
    // `trust proxy` is the operator's validated choice (TRUST_PROXY), `true` included.
    validate: { trustProxy: false },
    keyGenerator: async (req, res) => {
      const user = optionalCurrentUser(res);
      if (user !== undefined) return `user:${user.id}`;
      // Only a verified subject: a forged one could dodge the limit or spend another's budget.
      const token = bearerTokenIfAny(req.headers.authorization);
      if (token !== undefined && options.tokens !== undefined) {
        try {
          return `user:${await requestSubject(req, options.tokens, token)}`;
        } catch {
          // Any failure, even one of ours (a provider's keys out of reach), counts by address
          // here; `authenticate` reports the same failure from the same resolution.
        }
      }
      return `ip:${clientAddress(req)}`;
    },
    handler: (_req, _res, next) => {
      next(new TooManyRequestsError(`limit ${options.limit} per ${options.windowMs} ms`));
    },
  });
}
