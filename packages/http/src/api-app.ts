import { createErrorCatalogue } from '@trustpoint/domain';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import type { Queryable } from '@trustpoint/db';
import type { BearerTokens } from './bearer-tokens.js';
import { apiDocs, type ApiDocsOptions } from './api-docs.js';
import { lookUpCallerEarly, type AuthenticateOptions } from './authenticate.js';
import { errorHandler } from './error-handler.js';
import { jsonBody } from './json-body.js';
import { notFoundPointingToDocs } from './not-found-handler.js';
import { DatabaseRateLimitStore } from './database-rate-limit-store.js';
import { rateLimit } from './rate-limit.js';
import { requestId } from './request-id.js';
import { requestLogger } from './request-logger.js';
import { requestTarget } from './request-target.js';
import type { TrustProxy } from './trust-proxy.js';

export interface ApiAppOptions {
  /** Where the API is mounted, e.g. `/cert/v2`. */
  basePath: string;
  /** The API's OpenAPI document and page, served at the base path without a token. */
  docs: ApiDocsOptions;
  /** The API's routes, behind the per-user rate limit and the JSON body parser. */
  routers: readonly Router[];
  /**
   * Routes that take JSON bodies larger than `DEFAULT_JSON_BODY_LIMIT`, by method POST and a path
   * under `basePath` (a posted certificate, which the service issues larger than its request).
   */
  jsonBodyLimits?: readonly { path: string; limit: number }[] | undefined;
  logger: Logger;
  /** The support contact the error messages name. */
  supportContact?: string | undefined;
  /** Requests per user (or address) per minute. */
  requestsPerMinute?: number | undefined;
  /**
   * Counts the rate limit in this database (`rate_limit_counts`), shared by every process that
   * uses it, instead of in process memory: for PostgreSQL. Default: process memory.
   */
  rateLimitDatabase?: Queryable | undefined;
  /**
   * The clock of the rate limit counted in `rateLimitDatabase`, whose windows are minutes of the
   * epoch: `Date.now` by default (a test holds it inside one window).
   */
  rateLimitClock?: (() => number) | undefined;
  /** Express's `trust proxy` (`TRUST_PROXY`): the load balancers whose X-Forwarded-For counts. Default false. */
  trustProxy?: TrustProxy | undefined;
  /** The API's bearer tokens, which the routes authenticate with: the rate limit counts by them. */
  tokens: BearerTokens;
  /**
   * How the routes' `authenticate` finds the caller: given, the caller is looked up while the
   * rate limit counts the request (`lookUpCallerEarly`), a round trip less per request.
   */
  findUser?: AuthenticateOptions['findUser'] | undefined;
  /**
   * Further APIs served by the same app, each at its own base path with its own docs, under the
   * same shell (the admin API beside the certificate API).
   */
  mounts?: readonly MountedApi[] | undefined;
  /**
   * Handlers at the root of the listener, before the APIs and without their token or rate limit
   * (`/healthz`, `/readyz`, `/metrics`, the request metrics): after the request id, so their
   * answers carry one too.
   */
  root?: readonly RequestHandler[] | undefined;
}

/** An API an app serves beside its main one. */
export interface MountedApi {
  basePath: string;
  docs: ApiDocsOptions;
  routers: readonly Router[];
}

/**
 * An API as an Express app, the same shell for every API: request logs, the docs, the routes under
 * the rate limit, and the spec's bodies for unknown paths and errors. `listen` is the caller's.
 */
export function createApiApp(options: ApiAppOptions): Express {
  const apiOf = (
    basePath: string,
    routers: readonly Router[],
    jsonBodyLimits: ApiAppOptions['jsonBodyLimits'] = [],
  ) => {
    const api = express.Router();
    if (options.findUser !== undefined) {
      api.use(lookUpCallerEarly({ tokens: options.tokens, findUser: options.findUser }));
    }
    api.use(
      rateLimit({
        windowMs: 60_000,
        limit: options.requestsPerMinute ?? 6_000,
        tokens: options.tokens,
        // Each API has a budget of its own, as it has in memory.
        store:
          options.rateLimitDatabase === undefined
            ? undefined
            : new DatabaseRateLimitStore(options.rateLimitDatabase, `api:${basePath}`, {
                ...(options.rateLimitClock === undefined ? {} : { now: options.rateLimitClock }),
              }),
      }),
    );
    // After the rate limit, as every body: a route's own limit parses first, the shared one skips.
    for (const { path, limit } of jsonBodyLimits) {
      const parse = jsonBody({ limit });
      api.use(path, (req, res, next) => {
        if (req.method === 'POST') parse(req, res, next);
        else next();
      });
    }
    api.use(jsonBody());
    // OPTIONS is a browser's CORS preflight (publicReadCors answers those of the public reads) or
    // no operation: a 404 as any other method the API has not, where Express would answer
    // 200 text/plain listing the path's methods.
    api.use((req, _res, next) => {
      const preflight =
        req.headers.origin !== undefined &&
        req.headers['access-control-request-method'] !== undefined;
      if (req.method === 'OPTIONS' && !preflight) next('router');
      else next();
    });
    for (const router of routers) api.use(router);
    return api;
  };

  const app = express();
  app.disable('x-powered-by');
  // No weak ETag hashed from every JSON body: answers to writes never need one, and a route that
  // serves cacheable content (published files) sets its own strong ETag.
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy ?? false);
  app.use(requestId);
  for (const handler of options.root ?? []) app.use(handler);
  // Request lines are written at info; below that level the middleware would only cost time
  // (it serializes and redacts every request for a child logger that never writes).
  if (options.logger.isLevelEnabled('info')) app.use(requestLogger(options.logger));
  app.use(requestTarget);
  // Before the API: the docs need no token and the page's assets must not count against a limit.
  for (const mounted of options.mounts ?? []) {
    app.use(mounted.basePath, apiDocs(mounted.docs));
    app.use(mounted.basePath, apiOf(mounted.basePath, mounted.routers));
  }
  app.use(options.basePath, apiDocs(options.docs));
  app.use(options.basePath, apiOf(options.basePath, options.routers, options.jsonBodyLimits));
  app.use(
    notFoundPointingToDocs([
      options.basePath,
      ...(options.mounts ?? []).map((mounted) => mounted.basePath),
    ]),
  );
  app.use(
    errorHandler({
      catalogue: createErrorCatalogue(
        options.supportContact === undefined ? {} : { supportContact: options.supportContact },
      ),
      logger: options.logger,
    }),
  );
  return app;
}
