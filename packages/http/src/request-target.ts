import { DomainError, textProblem, type FieldError } from '@trustpoint/domain';
import type { RequestHandler } from 'express';

function refused(errors: FieldError[]): DomainError {
  return new DomainError('validation', { detail: 'undecodable request target', errors });
}

function queryProblems(name: string, value: unknown, problems: FieldError[]): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem !== undefined) problems.push({ field: `query.${name}`, error: problem });
  } else if (Array.isArray(value)) {
    for (const item of value) queryProblems(name, item, problems);
  }
}

function authorizationHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name?.length === 13 && name.toLowerCase() === 'authorization') count += 1;
  }
  return count;
}

/**
 * Mounted first: an HTTP/1.1 request without Host or with two Authorization headers, a path that is not valid percent-encoded UTF-8,
 * or a query value holding U+0000, is a 400 before any route sees it. Routes decode their parameters and query values into
 * text that reaches the database, which cannot hold U+0000; the router itself would throw on an
 * undecodable parameter, and only on the routes that have one. A path parameter holding U+0000 is
 * refused by `validate` as `path.<name>`, where its name is known.
 */
export const requestTarget: RequestHandler = (req, _res, next) => {
  // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400. The API server leaves this to us
  // (`requireHostHeader: false`), since Node's own answer has no body.
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    next(refused([{ field: 'headers.host', error: 'Required in HTTP/1.1' }]));
    return;
  }
  // Node keeps the first Authorization header and drops the others: a request naming two
  // credentials would be served as whichever came first.
  if (authorizationHeaders(req.rawHeaders) > 1) {
    next(
      refused([
        { field: 'headers.authorization', error: 'Send one Authorization header, not more' },
      ]),
    );
    return;
  }
  try {
    decodeURIComponent(req.path);
  } catch {
    next(refused([{ field: 'path', error: 'Must be valid percent-encoded UTF-8' }]));
    return;
  }
  const problems: FieldError[] = [];
  for (const [name, value] of Object.entries(req.query)) queryProblems(name, value, problems);
  next(problems.length === 0 ? undefined : refused(problems));
};
