import { createSecretKey } from 'node:crypto';
import type { User } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Request, RequestHandler, Response } from 'express';

import { bearerToken } from './bearer-token.js';
import { setCurrentUser } from './current-user.js';
import { verifyAccessToken, type TokenVerification } from './verify-access-token.js';

export interface AuthenticateOptions extends Omit<TokenVerification, 'key'> {
  /** The HS256 secret the tokens are signed with. */
  secret: string;
  /** Looks a token's subject up, e.g. `(id) => findUser(db, id)` from `@trustpoint/db`. */
  findUser: (id: string) => Promise<User | undefined>;
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
  return async (req, res) => {
    const userId = verifyAccessToken(bearerToken(req.headers.authorization), verification);
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
