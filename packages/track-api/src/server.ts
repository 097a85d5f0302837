import { randomBytes } from 'node:crypto';
import { networkSummaries } from '@trustpoint/chain';
import { batchedUserLookup } from '@trustpoint/db';
import {
  createApiApp,
  IdempotencyKeys,
  networksRouter,
  publicReadCors,
  type AnswerSealer,
  type CorsOrigins,
  type IdempotencySettings,
  type TrustProxy,
} from '@trustpoint/http';
import {
  accountRouter,
  Identities,
  identityRouter,
  type OidcIssuerConfig,
} from '@trustpoint/identity';
import { createSecretSealer, webhooksRouter, type WebhookSettings } from '@trustpoint/webhooks';
import type { Express, RequestHandler } from 'express';
import type { Knex } from 'knex';
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
  /** Counts the rate limit in this database, shared by every API process (PostgreSQL); default in memory. */
  rateLimitDatabase?: Knex;
  /** Express's `trust proxy` (`TRUST_PROXY`): the load balancers whose X-Forwarded-For counts. */
  trustProxy?: TrustProxy;
  /**
   * Health, readiness and metrics at the root of the listener (`/healthz`, `/readyz`, `/metrics`),
   * without a token: `serviceObservability` of @trustpoint/observability, one per process.
   */
  observability?: { httpMetrics: RequestHandler; router: RequestHandler };
  /** Serves the webhook routes (`/webhooks/endpoints`) when given. */
  webhooks?: WebhookSettings;
  /** External OpenID Connect providers whose tokens are accepted (`parseOidcIssuers`). */
  oidcIssuers?: readonly OidcIssuerConfig[];
  /** Origins whose pages may read the public routes (`CORS_ORIGINS`); default any (`*`). */
  corsOrigins?: CorsOrigins;
  /** How long `Idempotency-Key`s are kept and held; `DEFAULT_IDEMPOTENCY_SETTINGS` by default. */
  idempotency?: Partial<IdempotencySettings>;
  /**
   * Seals the answers kept for `Idempotency-Key`s (some carry a secret shown once): the launcher's
   * is under a key derived from `TRUSTPOINT_PIN_KEY`, shared by every process. Default: a random
   * key of this app alone, which only suits a single process.
   */
  idempotencySealer?: AnswerSealer;
}

/** What a page of another origin may read: evidences need a token, so only the networks. */
export const TRACK_API_PUBLIC_READS = ['/networks'] as const;

/** The asset-tracking API as an Express app, mounted at /track/v2; `listen` is the caller's. */
export function createTrackApp(options: TrackApiOptions): Express {
  const { services } = options;
  // Every token kind: the service's JWTs, API keys and their tokens, configured providers' JWTs.
  const tokens = new Identities({
    knex: services.knex,
    jwtSecret: options.jwtSecret,
    oidcIssuers: options.oidcIssuers ?? [],
  });
  const auth = { tokens, findUser: batchedUserLookup(services.knex) };
  const idempotency = new IdempotencyKeys({
    knex: services.knex,
    logger: services.logger,
    settings: options.idempotency,
    sealer: options.idempotencySealer ?? createSecretSealer(randomBytes(32)),
    now: services.now,
  });
  return createApiApp({
    root:
      options.observability === undefined
        ? []
        : [options.observability.httpMetrics, options.observability.router],
    basePath: TRACK_API_BASE_PATH,
    docs: {
      document: trackApiDocument({
        ...(options.supportContact === undefined ? {} : { supportContact: options.supportContact }),
        webhooks: options.webhooks !== undefined,
        idempotencyRetentionMs: idempotency.settings.retentionMs,
      }),
      title: 'Trustpoint asset-tracking API',
    },
    routers: [
      publicReadCors(TRACK_API_PUBLIC_READS, options.corsOrigins ?? '*'),
      assetsRouter(services, auth, idempotency),
      evidencesRouter(services, auth),
      networksRouter(() => networkSummaries(services.networks.list())),
      identityRouter({ identities: tokens, auth, idempotency }),
      accountRouter({ knex: services.knex, auth }),
      ...(options.webhooks === undefined
        ? []
        : [webhooksRouter(services.knex, options.webhooks, auth, idempotency)]),
    ],
    logger: services.logger,
    supportContact: options.supportContact,
    requestsPerMinute: options.requestsPerMinute,
    rateLimitDatabase: options.rateLimitDatabase,
    trustProxy: options.trustProxy,
    tokens,
    findUser: auth.findUser,
  });
}

export type { TrackServices } from './assets/track-services.js';
export { trackApiDocument, type TrackApiDocumentOptions } from './openapi/track-api-document.js';
