import {
  defaultErrorCatalogue,
  DomainError,
  toErrorBody,
  validationErrorBody,
  type ErrorBody,
  type ErrorCatalogue,
} from '@trustpoint/domain';
import { isTransientConflict } from '@trustpoint/db';
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';

import { bodyProblem } from './body-parser-error.js';
import { isDatabaseUnavailable } from './database-unavailable.js';
import { requestIdOf } from './request-id.js';
import { SERVICE_BUSY_BODY, ServiceBusyError } from './service-busy.js';
import { TOO_MANY_REQUESTS_BODY, TooManyRequestsError } from './too-many-requests.js';

export interface ErrorHandlerOptions {
  /** The app's catalogue (its support contact); defaults to `defaultErrorCatalogue`. */
  catalogue?: ErrorCatalogue;
  logger: Logger;
}

/** What a log line says about the request: never headers or the query string (tokens, PINs). */
function requestContext(req: Request, res: Response): Record<string, unknown> {
  // The id `requestId` gave (pino-http's `req.id` exists only when request lines are written).
  return { reqId: requestIdOf(res) ?? req.id, method: req.method, path: req.path };
}

/**
 * The one place a thrown error becomes a response (spec 7.1 body). Caller mistakes map through the
 * catalogue; a database that cannot be reached, or that rolled the request's transaction back to
 * break a deadlock, is a 503 (try again); anything unexpected is logged
 * with its stack and answered with the generic 500, so internals never reach the caller.
 */
export function errorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  const catalogue = options.catalogue ?? defaultErrorCatalogue;
  const { logger } = options;

  function bodyFor(error: unknown, req: Request, res: Response): ErrorBody {
    if (error instanceof DomainError) {
      const body = toErrorBody(error.code, {
        catalogue,
        errors: error.errors,
        ...(error.hint === undefined ? {} : { hint: error.hint }),
      });
      // 5xx domain errors (network down) need an operator; 4xx ones are the caller's business.
      const context = { ...requestContext(req, res), code: error.code };
      // A busy network's refusals (Retry-After) come by the thousand under load: the anchoring
      // engine logs when a network starts and stops refusing, not every request.
      if (body.statusCode >= 500 && error.retryAfterSeconds === undefined) {
        logger.error({ ...context, err: error }, error.message);
      } else logger.debug({ ...context, detail: error.message }, 'request refused');
      return body;
    }
    if (error instanceof z.ZodError) return validationErrorBody(error, { catalogue });
    if (error instanceof TooManyRequestsError) return { ...TOO_MANY_REQUESTS_BODY };
    if (error instanceof ServiceBusyError) {
      logger.warn({ ...requestContext(req, res), detail: error.message }, 'busy');
      return { ...SERVICE_BUSY_BODY };
    }
    // The router's own decoding of a path parameter (when a route is reached without requestTarget).
    if (error instanceof URIError) {
      return toErrorBody('validation', {
        catalogue,
        errors: [{ field: 'path', error: 'Must be valid percent-encoded UTF-8' }],
      });
    }
    // Certificate creation takes files as multipart; no other route does.
    const takesFiles = req.method === 'POST' && /\/certificates\/?$/.test(req.path);
    const problem = bodyProblem(error, req.headers['content-type'], takesFiles);
    if (problem?.kind === 'tooLarge') {
      return toErrorBody('payloadTooLarge', { catalogue, hint: problem.hint });
    }
    if (problem?.kind === 'invalid') {
      return toErrorBody('validation', { catalogue, errors: [problem.error] });
    }
    // The database broke a deadlock or a serialization conflict by rolling this request's
    // transaction back (40P01, 40001): nothing was kept, and the same request will pass later.
    if (isTransientConflict(error)) {
      logger.warn(
        { err: error, ...requestContext(req, res) },
        'transaction rolled back by a concurrent one',
      );
      return { ...SERVICE_BUSY_BODY };
    }
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error, ...requestContext(req, res) }, 'database unavailable');
      return toErrorBody('databaseUnavailable', { catalogue });
    }
    logger.error({ err: error, ...requestContext(req, res) }, 'unhandled error');
    return toErrorBody('internal', { catalogue });
  }

  return (error: unknown, req, res, next) => {
    // Too late for an error body: Express's default handler closes the connection.
    if (res.headersSent) {
      next(error);
      return;
    }
    const body = bodyFor(error, req, res);
    if (body.statusCode === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    if (isTransientConflict(error)) res.setHeader('Retry-After', '1');
    // A restart or a failover of the database takes seconds.
    if (isDatabaseUnavailable(error)) res.setHeader('Retry-After', '5');
    if (
      (error instanceof TooManyRequestsError ||
        error instanceof ServiceBusyError ||
        error instanceof DomainError) &&
      error.retryAfterSeconds !== undefined
    ) {
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
    }
    res.status(body.statusCode).json(body);
  };
}
