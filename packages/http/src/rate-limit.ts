import type { RequestHandler } from 'express';
import { rateLimit as expressRateLimit } from 'express-rate-limit';

import type { AccessTokens } from './access-tokens.js';
import { bearerTokenIfAny } from './bearer-token.js';
import { clientAddress } from './client-address.js';
import { optionalCurrentUser } from './current-user.js';
import { TooManyRequestsError } from './too-many-requests.js';

export interface RateLimitOptions {
  windowMs: number;
  /** Requests allowed per key and window. */
  limit: number;
  /**
   * The API's access tokens: a request with a valid token counts against its user even where the
   * limit runs before the route authenticates. Without it only an authenticated caller is.
   */
  tokens?: AccessTokens;
}

/**
 * At most `limit` requests per `windowMs` per caller. Callers are counted by user id (users behind
 * one NAT do not share a budget): the authenticated user when mounted after `authenticate`, else
 * the subject of a valid bearer token (`tokens`); anonymous callers and invalid tokens are counted
 * by IP. Counts live in process memory, so each API instance counts on its own.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  return expressRateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req, res) => {
      const user = optionalCurrentUser(res);
      if (user !== undefined) return `user:${user.id}`;
      // Only a verified subject: a forged one could dodge the limit or spend another's budget.
      const token = bearerTokenIfAny(req.headers.authorization);
      const subject = token === undefined ? undefined : options.tokens?.validSubject(token);
      if (subject !== undefined) return `user:${subject}`;
      return `ip:${clientAddress(req)}`;
    },
    handler: (_req, _res, next) => {
      next(new TooManyRequestsError(`limit ${options.limit} per ${options.windowMs} ms`));
    },
  });
}
