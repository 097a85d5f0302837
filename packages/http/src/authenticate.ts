import type { User } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Request, RequestHandler, Response } from 'express';

import { bearerToken } from './bearer-token.js';
import { requestCredential, type BearerTokens } from './bearer-tokens.js';
import { setCurrentUser } from './current-user.js';
import { setCurrentCredential } from './require-scope.js';
import { tokenIssuedBefore } from './token-issued-before.js';

export interface AuthenticateOptions {
  /**
   * The API's bearer tokens: `AccessTokens` for the service's own, or the identities of
   * `@trustpoint/identity` (one instance per API: it remembers the tokens it accepted).
   */
  tokens: BearerTokens;
  /** Looks a token's subject up, e.g. `batchedUserLookup(db)` from `@trustpoint/db`. */
  findUser: (id: string) => Promise<User | undefined>;
}

type Authenticator = (req: Request, res: Response) => Promise<void>;

function authenticator(options: AuthenticateOptions): Authenticator {
  return async (req, res) => {
    const token = bearerToken(req.headers.authorization);
    const credential = await requestCredential(req, options.tokens, token);
    const user = await options.findUser(credential.subject);
    if (user === undefined) {
      throw new DomainError('wrongCredentials', { detail: 'token subject is not a known user' });
    }
    // Tokens from before the user's last disabling stay dead once the user is enabled again.
    if (user.tokensValidAfter !== undefined && tokenIssuedBefore(token, user.tokensValidAfter)) {
      throw new DomainError('invalidToken', {
        detail: 'token issued before its user was last disabled',
      });
    }
    setCurrentUser(res, user);
    setCurrentCredential(res, credential);
  };
}

/**
 * Requires `Authorization: Bearer <token>` and puts the caller on `res.locals` (`currentUser(res)`,
 * and its credential's scopes for `requireScope`: `currentCredential(res)`).
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
