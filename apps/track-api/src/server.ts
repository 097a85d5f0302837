import { findUser } from '@trustpoint/db';
import { createErrorCatalogue } from '@trustpoint/domain';
import {
  apiDocs,
  errorHandler,
  jsonBody,
  notFoundHandler,
  rateLimit,
  requestLogger,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
} from '@trustpoint/http';
import express, { type Express } from 'express';
import type { TrackServices } from './assets/track-services.js';
import { trackApiDocument } from './openapi/track-api-document.js';
import { assetsRouter } from './routes/assets-router.js';
import { evidencesRouter } from './routes/evidences-router.js';

export const TRACK_API_BASE_PATH = '/track/v2';

export interface TrackApiOptions {
  services: TrackServices;
  jwtSecret: string;
  supportContact?: string;
  /** Requests per user (or address) per minute. */
  requestsPerMinute?: number;
}

/** The asset-tracking API as an Express app, mounted at /track/v2; `listen` is the caller's. */
export function createTrackApp(options: TrackApiOptions): Express {
  const { services } = options;
  const auth = {
    secret: options.jwtSecret,
    issuer: TOKEN_ISSUER,
    audience: TOKEN_AUDIENCE,
    findUser: (id: string) => findUser(services.knex, id),
  };
  const api = express.Router();
  api.use(rateLimit({ windowMs: 60_000, limit: options.requestsPerMinute ?? 6_000 }));
  api.use(jsonBody());
  api.use(assetsRouter(services, auth));
  api.use(evidencesRouter(services, auth));

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogger(services.logger));
  // Before the API: the docs need no token and the page's assets must not count against a limit.
  app.use(
    TRACK_API_BASE_PATH,
    apiDocs({
      document: trackApiDocument(
        options.supportContact === undefined ? {} : { supportContact: options.supportContact },
      ),
      title: 'Trustpoint asset-tracking API',
    }),
  );
  app.use(TRACK_API_BASE_PATH, api);
  app.use(notFoundHandler);
  app.use(
    errorHandler({
      catalogue: createErrorCatalogue(
        options.supportContact === undefined ? {} : { supportContact: options.supportContact },
      ),
      logger: services.logger,
    }),
  );
  return app;
}

export type { TrackServices } from './assets/track-services.js';
export { trackApiDocument, type TrackApiDocumentOptions } from './openapi/track-api-document.js';
