import { findUser } from '@trustpoint/db';
import { createErrorCatalogue } from '@trustpoint/domain';
import {
  errorHandler,
  jsonBody,
  notFoundHandler,
  rateLimit,
  requestLogger,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
} from '@trustpoint/http';
import express, { type Express } from 'express';
import type { CertificateServices } from './certificates/certificate-services.js';
import { certificatesRouter } from './routes/certificates-router.js';
import { trustpointsRouter } from './routes/trustpoints-router.js';

export const CERT_API_BASE_PATH = '/cert/v2';

export interface CertApiOptions {
  services: CertificateServices;
  jwtSecret: string;
  supportContact?: string;
  /** Requests per user (or address) per minute. */
  requestsPerMinute?: number;
}

/** The certificate API as an Express app, mounted at /cert/v2; `listen` is the caller's. */
export function createCertApp(options: CertApiOptions): Express {
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
  api.use(certificatesRouter(services, auth));
  api.use(trustpointsRouter(services, auth));

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogger(services.logger));
  app.use(CERT_API_BASE_PATH, api);
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

export type { CertificateServices } from './certificates/certificate-services.js';
export { createPinCipher, type PinCipher } from './certificates/pin-cipher.js';
