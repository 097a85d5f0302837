import { createSecretKey } from 'node:crypto';
import type { User } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Request, RequestHandler, Response } from 'express';

import { bearerToken } from './bearer-token.js';
import { setCurrentUser } from './current-user.js';
import {
  verifyAccessToken,
  type TokenVerification,
  type VerifiedToken,
} from './verify-access-token.js';

export interface AuthenticateOptions extends Omit<TokenVerification, 'key'> {
  /** The HS256 secret the tokens are signed with. */
  secret: string;
  /** Looks a token's subject up, e.g. `(id) => findUser(db, id)` from `@trustpoint/db`. */
  findUser: (id: string) => Promise<User | undefined>;
}

/** Most tokens remembered as verified; beyond it the oldest is forgotten first. */
const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * Tokens whose signature, issuer and audience were already checked, with their subject and expiry:
 * a client sends the same token with every request, and the HMAC check is a good part of a small
 * request's cost. Only exact token strings verified with this authenticator's key are kept, and
 * each stops counting at its expiry, when it is checked afresh (and found expired).
 */
class VerifiedTokens {
  readonly #tokens = new Map<string, { subject: string; expiresAtMs: number }>();

  subject(token: string): string | undefined {
    const entry = this.#tokens.get(token);
    if (entry === undefined) return undefined;
    if (Date.now() < entry.expiresAtMs) return entry.subject;
    this.#tokens.delete(token);
    return undefined;
  }

  remember(token: string, verified: VerifiedToken): string {
    if (this.#tokens.size >= VERIFIED_TOKENS_KEPT) {
      const oldest = this.#tokens.keys().next();
      if (oldest.done !== true) this.#tokens.delete(oldest.value);
    }
    this.#tokens.set(token, { subject: verified.subject, expiresAtMs: verified.expiresAt * 1000 });
    return verified.subject;
  }
}

type Authenticator = (req: Request, res: Response) => Promise<void>;

function authenticator(options: AuthenticateOptions): Authenticator {
  if (options.secret === '') {
    // An empty secret would make every token check fail (or worse); stop at start-up instead.
    throw new TypeError('authenticate() needs a non-empty token secret');
  }
  const verification: TokenVerification = {
    key: createSecretKey(Buffer.from(options.secret, 'utf8')),
    issuer: options.issuer,
    audience: options.audience,
  };
  const verified = new VerifiedTokens();
  return async (req, res) => {
    const token = bearerToken(req.headers.authorization);
    const userId =
      verified.subject(token) ?? verified.remember(token, verifyAccessToken(token, verification));
    const user = await options.findUser(userId);
    if (user === undefined) {
      throw new DomainError('wrongCredentials', { detail: 'token subject is not a known user' });
    }
    setCurrentUser(res, user);
  };
}

/**
 * Requires `Authorization: Bearer <JWT>` and puts the caller on `res.locals` (`currentUser(res)`).
 * Failures are thrown as DomainErrors, so the error handler writes the 401.
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  const check = authenticator(options);
  return async (req, res, next) => {
    await check(req, res);
    next();
  };
}

/**
 * For routes anyone may read (public certificates): without an Authorization header the caller is
 * anonymous; a header that is present is checked exactly as `authenticate` does, because a bad
 * token is a client bug worth reporting rather than silently ignoring.
 */
export function optionalAuthenticate(options: AuthenticateOptions): RequestHandler {
  const check = authenticator(options);
  return async (req, res, next) => {
    if (req.headers.authorization !== undefined) await check(req, res);
    next();
  };
}
