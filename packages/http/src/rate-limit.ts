import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit as expressRateLimit } from 'express-rate-limit';

import { optionalCurrentUser } from './current-user.js';
import { TooManyRequestsError } from './too-many-requests.js';

export interface RateLimitOptions {
  windowMs: number;
  /** Requests allowed per key and window. */
  limit: number;
}

/**
 * At most `limit` requests per `windowMs` per caller. Mount it after `authenticate` so callers are
 * counted by user id (users behind one NAT do not share a budget); anonymous callers are counted by
 * IP. Counts live in process memory, so each API instance counts on its own.
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
      // ipKeyGenerator groups an IPv6 /56, so one host cannot dodge the limit by rotating addresses.
      return `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;
    },
    handler: (_req, _res, next) => {
      next(new TooManyRequestsError(`limit ${options.limit} per ${options.windowMs} ms`));
    },
  });
}
