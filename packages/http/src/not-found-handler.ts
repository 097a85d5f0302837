import { DomainError } from '@trustpoint/domain';
import type { RequestHandler } from 'express';

/** Mounted after every route: an unknown route is a 404 written by the error handler. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new DomainError('notFound', { detail: `no route for ${req.method} ${req.path}` }));
};
