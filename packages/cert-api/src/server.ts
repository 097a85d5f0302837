import { randomBytes } from 'node:crypto';
import { ISSUED_CERTIFICATE_MAX_BYTES } from './certificates/certificate-hash-v2.js';
import { ADMIN_API_BASE_PATH, adminApiDocument, adminRouter } from '@trustpoint/admin';
import { networkSummaries } from '@trustpoint/chain';
import { batchedUserLookup } from '@trustpoint/db';
import {
  createApiApp,
  DatabaseRateLimitStore,
  IdempotencyKeys,
  networksRouter,
  publicAddressFetch,
  publicReadCors,
  trustDocumentRouter,
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
import type { TrustDocument } from '@trustpoint/domain';
import type { PublicChain } from '@trustpoint/verifier';
import type { Express, RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { CertificateServices } from './certificates/certificate-services.js';
import { pinAttemptLimits } from './certificates/pin-attempt-limits.js';
import { serviceTrust } from './certificates/verify-certificate.js';
import { certApiDocument } from './openapi/cert-api-document.js';
import { certificatesRouter } from './routes/certificates-router.js';
import { filesRouter } from './routes/files-router.js';
import { jwksRouter } from './routes/jwks-router.js';
import { trustpointsRouter } from './routes/trustpoints-router.js';
import type { PostedVerificationLimits } from './routes/posted-verification-limits.js';
import { issuerDomainsRouter } from './routes/issuer-domains-router.js';
import { dnsTxtResolver } from './issuer-domains/dns-txt-resolver.js';
import { webVerifierRouter } from './routes/web-verifier-router.js';

export const CERT_API_BASE_PATH = '/cert/v2';

export interface CertApiOptions {
  services: CertificateServices;
  jwtSecret: string;
  supportContact?: string;
  /** Requests per user (or address) per minute. */
  requestsPerMinute?: number;
  /** Counts the rate limit in this database, shared by every API process (PostgreSQL); default in memory. */
  rateLimitDatabase?: Knex;
  /** The clock of the limits counted in `rateLimitDatabase` (minutes of the epoch); `Date.now`. */
  rateLimitClock?: () => number;
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
  /** Serves the admin API (`/admin/v1`, admins only) beside the certificate API. Default true. */
  admin?: boolean;
  /** Serves the web verifier (static files) at `/cert/v2/verify/`. Default true. */
  webVerifier?: boolean;
  /**
   * The public endpoints of well-known chains the web verifier may ask for a network its user
   * lists no node for (`TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS`); the verifier's `PUBLIC_CHAINS`
   * by default, none when empty.
   */
  verifierPublicEndpoints?: readonly PublicChain[] | (() => readonly PublicChain[]);
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
  /**
   * Serves the trust document at `/.well-known/trustpoint.json` of the listener's root: what
   * verifiers pin when their user trusts this service's origin.
   */
  trustDocument?: () => Promise<TrustDocument>;
  /**
   * The service's public origin (`TRUSTPOINT_PUBLIC_URL`): the PDF's QR code opens its web
   * verifier. Default `http://127.0.0.1:8080`, the embedded default; never the request's Host.
   */
  publicUrl?: string | (() => string);
  /**
   * The DNS servers the service asks for the TXT records that prove customers' domains
   * (`TRUSTPOINT_DNS_SERVERS`: `host` or `host:port`); the system's by default.
   */
  dnsServers?: readonly string[];
  /**
   * How many certificate copies anyone may post to `POST /trustpoints/verification`: per client
   * address and minute (`VERIFICATIONS_PER_MINUTE`), and at once in this process
   * (`VERIFICATIONS_AT_ONCE`); `DEFAULT_POSTED_VERIFICATION_LIMITS` for each left out. The counts
   * per address live in `rateLimitDatabase` when given.
   */
  postedVerifications?: Partial<PostedVerificationLimits>;
  /**
   * Certificate PDFs made at once in this process, as many more waiting their turn up to 5 s, any
   * other a 503 with Retry-After; `DEFAULT_CERTIFICATE_PDFS_AT_ONCE` by default.
   */
  certificatePdfsAtOnce?: number;
}

/**
 * The routes a web page of another origin may read (the web verifier opened from disk or another
 * site): what anyone may read without a token. Only these answer CORS.
 */
export const CERT_API_PUBLIC_READS = [
  '/certificates/:type/:id',
  '/certificates/:type/:id/pdf',
  '/trustpoints/:type/:id',
  '/files/:fileHash',
  '/networks',
  '/.well-known/jwks.json',
] as const;

/** The same URL, however written (`http://node:8545` is `http://node:8545/`). */
function sameUrl(url: URL, given: string): boolean {
  try {
    return new URL(given).href === url.href;
  } catch {
    return false;
  }
}

/**
 * The services, naming the configured public origin as version 2 certificates' `issuerOrigin`
 * (covered by their hash) unless they name one themselves, resolving the DNS records that prove
 * customers' domains on `dnsServers`, and verifying with a `fetch` that reaches the service's own
 * nodes as configured and any other URL only at a public address, resolved on `dnsServers` too.
 */
function issuingServices({
  services: given,
  publicUrl,
  dnsServers,
}: CertApiOptions): CertificateServices {
  const services = {
    ...given,
    resolveTxt: given.resolveTxt ?? dnsTxtResolver(dnsServers),
    verifierFetch:
      given.verifierFetch ??
      publicAddressFetch({
        dnsServers,
        passThrough: (url) => given.networks.list().some((network) => sameUrl(url, network.rpcUrl)),
      }),
  };
  if (services.issuerOrigin !== undefined || publicUrl === undefined) return services;
  const issuerOrigin = () =>
    new URL(typeof publicUrl === 'string' ? publicUrl : publicUrl()).origin;
  return { ...services, issuerOrigin };
}

const verifierEndpointsOption = (
  given: CertApiOptions['verifierPublicEndpoints'],
): { publicEndpoints?: () => readonly PublicChain[] } =>
  given === undefined ? {} : { publicEndpoints: typeof given === 'function' ? given : () => given };

/** The certificate API as an Express app, mounted at /cert/v2; `listen` is the caller's. */
export function createCertApp(options: CertApiOptions): Express {
  const services = issuingServices(options);
  // A bad limit stops start-up rather than the first request with a PIN.
  pinAttemptLimits(services.pinAttempts);
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
  const trust = serviceTrust(services, options.trustDocument);
  return createApiApp({
    root: [
      ...(options.observability === undefined
        ? []
        : [options.observability.httpMetrics, options.observability.router]),
      ...(options.trustDocument === undefined ? [] : [trustDocumentRouter(options.trustDocument)]),
    ],
    basePath: CERT_API_BASE_PATH,
    // A certificate as the service issues it is larger than its request: posted back, it fits.
    jsonBodyLimits: [{ path: '/trustpoints/verification', limit: ISSUED_CERTIFICATE_MAX_BYTES }],
    docs: {
      document: certApiDocument({
        ...(options.supportContact === undefined ? {} : { supportContact: options.supportContact }),
        ...(services.pinAttempts === undefined ? {} : { pinAttempts: services.pinAttempts }),
        webhooks: options.webhooks !== undefined,
        idempotencyRetentionMs: idempotency.settings.retentionMs,
        ...(options.postedVerifications === undefined
          ? {}
          : { postedVerifications: options.postedVerifications }),
        ...(options.certificatePdfsAtOnce === undefined
          ? {}
          : { certificatePdfsAtOnce: options.certificatePdfsAtOnce }),
      }),
      title: 'Trustpoint certificate API',
    },
    routers: [
      publicReadCors(CERT_API_PUBLIC_READS, options.corsOrigins ?? '*'),
      certificatesRouter(
        services,
        auth,
        () => {
          const { publicUrl } = options;
          if (publicUrl === undefined) return 'http://127.0.0.1:8080';
          return typeof publicUrl === 'string' ? publicUrl : publicUrl();
        },
        idempotency,
        trust,
        options.certificatePdfsAtOnce,
      ),
      trustpointsRouter(services, auth, trust, {
        ...(options.postedVerifications === undefined
          ? {}
          : { limits: options.postedVerifications }),
        // Counted per address in the database with the other limits, when they are.
        rateLimitStore:
          options.rateLimitDatabase === undefined
            ? undefined
            : new DatabaseRateLimitStore(
                options.rateLimitDatabase,
                `${CERT_API_BASE_PATH}:posted-verifications`,
                options.rateLimitClock === undefined ? {} : { now: options.rateLimitClock },
              ),
      }),
      issuerDomainsRouter(services, auth),
      filesRouter(services),
      jwksRouter(services.signer),
      networksRouter(() => networkSummaries(services.networks.list())),
      ...(options.webVerifier === false
        ? []
        : [
            webVerifierRouter({
              nodes: () => services.networks.list(),
              ...verifierEndpointsOption(options.verifierPublicEndpoints),
            }),
          ]),
      identityRouter({ identities: tokens, auth, idempotency }),
      accountRouter({ knex: services.knex, auth }),
      ...(options.webhooks === undefined
        ? []
        : [webhooksRouter(services.knex, options.webhooks, auth, idempotency)]),
    ],
    mounts:
      options.admin === false
        ? []
        : [
            {
              basePath: ADMIN_API_BASE_PATH,
              docs: {
                document: adminApiDocument({
                  ...(options.supportContact === undefined
                    ? {}
                    : { supportContact: options.supportContact }),
                  idempotencyRetentionMs: idempotency.settings.retentionMs,
                }),
                title: 'Trustpoint admin API',
              },
              routers: [
                adminRouter({
                  knex: services.knex,
                  auth,
                  tokenSecret: options.jwtSecret,
                  networkIds: () => services.networks.list().map((network) => network.networkId),
                  now: services.now,
                  idempotency,
                }),
              ],
            },
          ],
    logger: services.logger,
    supportContact: options.supportContact,
    requestsPerMinute: options.requestsPerMinute,
    rateLimitDatabase: options.rateLimitDatabase,
    rateLimitClock: options.rateLimitClock,
    trustProxy: options.trustProxy,
    tokens,
    findUser: auth.findUser,
  });
}

export type { CertificateServices } from './certificates/certificate-services.js';
export { certApiDocument, type CertApiDocumentOptions } from './openapi/cert-api-document.js';
export { DEFAULT_MAX_FILE_BYTES, type FilesSettings } from './files/files-settings.js';
export type { PublishedFileStore } from './files/published-file-store.js';
// The S3 store is its own entry (`@trustpoint/cert-api/s3-file-store`), loaded only when a bucket
// is configured, so that a service without one never loads the AWS SDK.
export type { S3FileStoreSettings } from './files/s3-file-store.js';
export { s3SettingsFromEnv } from './files/s3-settings-from-env.js';
export { verifierPublicEndpointsFromEnv } from './routes/verifier-public-endpoints-from-env.js';
export type { PublicChain } from '@trustpoint/verifier';
export {
  DEFAULT_URL_FETCH_SETTINGS,
  type UrlFetchSettings,
} from './url-fetch/url-fetch-settings.js';
export { createPinCipher, type PinCipher } from './certificates/pin-cipher.js';
export {
  DEFAULT_PIN_ATTEMPT_LIMITS,
  type PinAttemptLimits,
} from './certificates/pin-attempt-limits.js';
export {
  DEFAULT_POSTED_VERIFICATION_LIMITS,
  type PostedVerificationLimits,
} from './routes/posted-verification-limits.js';
export {
  createCertificateSigner,
  generateSigningKey,
  type CertificateSigner,
  type CertificateSignerOptions,
} from './certificates/certificate-signer.js';
export type { JWK } from 'jose';
export {
  publicSigningKeyOf,
  type SignatureAlgorithm,
  type VerificationKeyInput,
} from './certificates/public-signing-key.js';
