import { DomainError } from '@trustpoint/domain';
import { currentUser } from '@trustpoint/http';
import type { RequestHandler } from 'express';

/**
 * After `authenticate`: only a user with the `admin` role goes on; any other caller gets the 403
 * `adminRequired` before a route runs, so nothing changes.
 */
export const requireAdmin: RequestHandler = (_req, res, next) => {
  if (currentUser(res).role !== 'admin') {
    throw new DomainError('adminRequired', { detail: `${currentUser(res).id} is no admin` });
  }
  next();
};
