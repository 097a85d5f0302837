import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { REQUEST_ID_HEADER } from './request-id.js';

const REDACTED = '[Redacted]';

/** Credentials a request may carry in headers or the query; none of them may reach a log. */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.query.pin',
];

// `?pin=` opens a protected certificate (DESIGN section 7), so it is a secret inside the URL too.
const PIN_IN_URL = /([?&]pin=)[^&#]*/gi;

/** The URL with the value of every `pin` query parameter replaced. */
export function redactPin(url: string): string {
  return url.replace(PIN_IN_URL, `$1${REDACTED}`);
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
    customProps: (req) => ({ clientAddress: (req as { ip?: string }).ip }),
    serializers: {
      // Receives pino's serialized request (a fresh object), so changing `url` touches nothing else.
      req: (req: { url?: string }) => {
        if (typeof req.url === 'string') req.url = redactPin(req.url);
        return req;
      },
    },
  });
}
