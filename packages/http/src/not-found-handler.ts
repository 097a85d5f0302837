import { DomainError } from '@trustpoint/domain';
import type { RequestHandler } from 'express';
import { API_DOCS_PAGE_PATH } from './api-docs.js';

/** Mounted after every route: an unknown route is a 404 written by the error handler. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new DomainError('notFound', { detail: `no route for ${req.method} ${req.path}` }));
};

/**
 * `notFoundHandler` for an app serving the APIs at `basePaths`: the 404 points at their docs
 * pages, where a newcomer who tried `GET /` or `GET /cert/v2` finds the operations.
 */
export function notFoundPointingToDocs(basePaths: readonly string[]): RequestHandler {
  const pages = basePaths.map((basePath) => `${basePath}${API_DOCS_PAGE_PATH}/`).join(', ');
  const hint = {
    field: 'path',
    error: `No operation at this method and path; the operations are listed at ${pages}`,
  };
  return (req, _res, next) => {
    next(new DomainError('notFound', { detail: `no route for ${req.method} ${req.path}`, hint }));
  };
}
