import { randomUUID } from 'node:crypto';
import { unescape } from 'node:querystring';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

const REDACTED = '[Redacted]';

/** Credentials a request may carry in headers; none of them may reach a log. */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
];

/**
 * A query parameter's name as the query parser reads it (`+` a space, percent escapes decoded,
 * a bad escape left as it is), so `p%69n` is the `pin` the route reads.
 */
function decodedName(name: string): string {
  return unescape(name.replace(/\+/g, ' '));
}

/**
 * Whether a query parameter may carry a secret, by its name decoded, in any case, brackets
 * dropped (`pin[]`): a certificate's `pin` (DESIGN section 7), and whatever a client sends its
 * credentials as by mistake (`access_token`, `client_secret`, `api_key`, `password`, `code`). No
 * route takes these in the query; a client that sends one still must not find it in a log.
 */
export function isSecretParameter(name: string): boolean {
  const plain = decodedName(name).toLowerCase().replace(/\[.*$/, '').trim();
  return /^(pin|code|sig|signature|passw(or)?d|.*(secret|token|key|auth|credential).*)$/.test(
    plain,
  );
}

/**
 * The URL with the value of every query parameter that may carry a secret replaced
 * (`isSecretParameter`); the rest of the URL is kept as sent.
 */
export function redactSecrets(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const fragmentAt = url.indexOf('#', queryAt);
  const end = fragmentAt < 0 ? url.length : fragmentAt;
  const query = url
    .slice(queryAt + 1, end)
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=');
      const name = equals < 0 ? parameter : parameter.slice(0, equals);
      return isSecretParameter(name) ? `${name}=${REDACTED}` : parameter;
    })
    .join('&');
  return `${url.slice(0, queryAt + 1)}${query}${url.slice(end)}`;
}

/** One log line per request (method, URL, status, time), with credentials redacted. */
export function requestLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    // The id `requestId` gave the request (mounted before), so a log line and the audit entries
    // of its changes carry the same id.
    genReqId: (_req, res) => {
      const id = res.getHeader(REQUEST_ID_HEADER);
      return typeof id === 'string' ? id : randomUUID();
    },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    // The client as Express sees it: behind a load balancer named by `trust proxy`, the address
    // X-Forwarded-For gives, not the balancer's (which stays in `req.remoteAddress`).
    // `reqId` as every other line of the request has it (the error handler's, the use cases').
    customProps: (req, res) => ({
      reqId: requestIdOf(res as Response) ?? undefined,
      clientAddress: (req as { ip?: string }).ip,
    }),
    serializers: {
      // Receives pino's serialized request (a fresh object), so changing `url` touches nothing else.
      req: (req: { url?: string; query?: unknown }) => {
        if (typeof req.url === 'string') req.url = redactSecrets(req.url);
        // `query` is the request's own parsed object: replaced by a copy, never changed.
        const { query } = req;
        if (typeof query === 'object' && query !== null) {
          req.query = Object.fromEntries(
            Object.entries(query).map(([name, value]: [string, unknown]) => [
              name,
              isSecretParameter(name) ? REDACTED : value,
            ]),
          );
        }
        return req;
      },
    },
  });
}
