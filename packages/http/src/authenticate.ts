import type { User } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Request, RequestHandler, Response } from 'express';

import { bearerToken, bearerTokenIfAny } from './bearer-token.js';
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

/** Each request's caller lookup, made at most once (`lookUpCallerEarly`, then `authenticate`). */
const callers = new WeakMap<
  Request,
  { findUser: AuthenticateOptions['findUser']; subject: string; user: Promise<User | undefined> }
>();

function requestUser(
  req: Request,
  findUser: AuthenticateOptions['findUser'],
  subject: string,
): Promise<User | undefined> {
  const known = callers.get(req);
  if (known?.findUser === findUser && known.subject === subject) return known.user;
  const user = findUser(subject);
  // Started early, it may end with no route awaiting it (a 429, a 404).
  user.catch(() => undefined);
  callers.set(req, { findUser, subject, user });
  return user;
}

/**
 * Starts looking the caller up as soon as its bearer token is verified, without waiting for it:
 * mounted before the rate limit, the lookup runs beside the limit's count (two queries in one
 * round trip's time instead of one after the other), and `authenticate` awaits the same lookup.
 * A request without a valid token passes untouched; `authenticate` reports why.
 */
export function lookUpCallerEarly(options: AuthenticateOptions): RequestHandler {
  return (req, _res, next) => {
    const token = bearerTokenIfAny(req.headers.authorization);
    if (token !== undefined) {
      requestCredential(req, options.tokens, token).then(
        (credential) => void requestUser(req, options.findUser, credential.subject),
        () => undefined,
      );
    }
    next();
  };
}

function authenticator(options: AuthenticateOptions): Authenticator {
  return async (req, res) => {
    const token = bearerToken(req.headers.authorization);
    const credential = await requestCredential(req, options.tokens, token);
    const user = await requestUser(req, options.findUser, credential.subject);
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
