import type { User } from '@trustpoint/db';
import type { Response } from 'express';

/** Where `authenticate` leaves the caller; read it through the accessors below. */
const USER_KEY = 'user';

export function setCurrentUser(res: Response, user: User): void {
  res.locals[USER_KEY] = user;
}

/** The caller on a route behind `optionalAuthenticate`: `undefined` when anonymous. */
export function optionalCurrentUser(res: Response): User | undefined {
  // Only setCurrentUser writes this key, so the value is a User or absent.
  const user: unknown = res.locals[USER_KEY];
  return user as User | undefined;
}

/** The caller on a route behind `authenticate`. */
export function currentUser(res: Response): User {
  const user = optionalCurrentUser(res);
  if (user === undefined) {
    // A wiring mistake, not a caller's: it surfaces as a logged 500.
    throw new Error('currentUser() used on a route that is not behind authenticate()');
  }
  return user;
}
