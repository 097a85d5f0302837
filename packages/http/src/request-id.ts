import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What a caller's id may look like to be kept: short, printable, nothing to inject into logs. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const REQUEST_ID_KEY = 'requestId';

/**
 * Mounted first: gives each request an id, the caller's `X-Request-Id` when it is sane (1 to 128
 * characters of `A-Z a-z 0-9 . _ : -`), a new UUID otherwise, and sends it back in the same
 * header. The audit log records it beside each change; the request's log line, its error lines and
 * the lines its use cases write carry it as `reqId` (given to them with the request, not found
 * through an `AsyncLocalStorage`: on Node.js 20 one costs every promise of the process a hook).
 */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
  res.locals[REQUEST_ID_KEY] = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
};

/** The request's id (`requestId`); null on an app that does not mount it. */
export function requestIdOf(res: Response): string | null {
  const id: unknown = res.locals[REQUEST_ID_KEY];
  return typeof id === 'string' ? id : null;
}
