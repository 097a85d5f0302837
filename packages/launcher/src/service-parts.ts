import { join } from 'node:path';
import { TrustDocumentSource, type AnchorEngine, type NetworkRegistry } from '@trustpoint/chain';
import {
  createCertApp,
  createCertificateSigner,
  createPinCipher,
  type CertificateSigner,
} from '@trustpoint/cert-api';
import { findPlan, listRegistriesInUse, type Database } from '@trustpoint/db';
import type { serviceObservability } from '@trustpoint/observability';
import { createTrackApp } from '@trustpoint/track-api';
import {
  createSecretSealer,
  deriveIdempotencyAnswerKey,
  deriveWebhookKey,
  WebhookWorker,
  type WebhookSettings,
} from '@trustpoint/webhooks';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { LauncherConfig } from './launcher-config.js';
import type { Secrets } from './local-identity.js';

/**
 * The parts every process of the service builds the same way, whether it runs everything
 * (`serve all`) or one role: what the APIs, the webhook worker and the start-up checks are made of.
 */
export interface ServiceParts {
  config: LauncherConfig;
  secrets: Secrets;
  database: Database;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  logger: Logger;
  observability: ReturnType<typeof serviceObservability>;
}

/**
 * Webhook secrets are sealed under a key derived from the PIN key: nothing new to keep. The
 * endpoints' addresses follow the URL certificates' policy (URL_FETCH_ALLOW[_PRIVATE]).
 */
export function webhookSettings(config: LauncherConfig, secrets: Secrets): WebhookSettings {
  return {
    sealer: createSecretSealer(deriveWebhookKey(Buffer.from(secrets.pinKey, 'base64url'))),
    addressPolicy: {
      allowAddresses: config.urlFetchAllow,
      allowPrivateAddresses: config.urlFetchAllowPrivate,
    },
  };
}

/** A started webhook worker; any number of processes may run one on one database. */
export function startWebhookWorker(parts: ServiceParts): WebhookWorker {
  const webhooks = webhookSettings(parts.config, parts.secrets);
  const worker = new WebhookWorker({
    knex: parts.database.knex,
    sealer: webhooks.sealer,
    addressPolicy: webhooks.addressPolicy,
    logger: parts.logger,
    onAttempt: parts.observability.onWebhookAttempt,
  });
  worker.start();
  return worker;
}

/** A provider whose users would be provisioned on a plan that does not exist stops the start. */
export async function requireProvisioningPlans(
  parts: Pick<ServiceParts, 'config' | 'database'>,
  refuse: (message: string) => Error,
): Promise<void> {
  for (const { issuer, provision } of parts.config.oidcIssuers) {
    if (
      provision !== undefined &&
      (await findPlan(parts.database.knex, provision.planId)) === undefined
    ) {
      throw refuse(
        `OIDC_ISSUERS: users of ${issuer} are provisioned on plan "${provision.planId}", which does not exist`,
      );
    }
  }
}

async function signerOf(config: LauncherConfig, storedKey: string): Promise<CertificateSigner> {
  try {
    return await createCertificateSigner(config.signingKey ?? storedKey, {
      retired: config.retiredSigningKeys,
    });
  } catch (error) {
    const source =
      config.signingKey === undefined ? 'the signing key of secrets.json' : 'SIGNING_KEY';
    throw new Error(`${source} is not a usable private key: ${(error as Error).message}`);
  }
}

/** What both APIs take besides their services. */
function apiOptions(parts: ServiceParts) {
  const { config, secrets, database, observability } = parts;
  return {
    jwtSecret: secrets.jwtSecret,
    oidcIssuers: config.oidcIssuers,
    webhooks: webhookSettings(config, secrets),
    requestsPerMinute: config.requestsPerMinute,
    // On PostgreSQL the limits are counted in the database, shared with any other process.
    rateLimitDatabase: config.databaseUrl === undefined ? undefined : database.knex,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    observability,
    idempotency: config.idempotency,
    // Answers kept for Idempotency-Keys are sealed under a key of their own, derived from the PIN
    // key like the webhook key: the same in every process, nothing new to keep.
    idempotencySealer: createSecretSealer(
      deriveIdempotencyAnswerKey(Buffer.from(secrets.pinKey, 'base64url')),
    ),
  };
}

/** The service's trust document, built from its networks and the registries its records name. */
function trustDocumentOf(parts: ServiceParts): TrustDocumentSource['document'] {
  const source = new TrustDocumentSource({
    origin: parts.config.publicUrl,
    name: parts.config.serviceName,
    networks: () => parts.networks.list(),
    registriesInUse: () => listRegistriesInUse(parts.database.knex),
  });
  return () => source.document();
}

/** The certificate API (with the admin API beside it) on these parts. */
export async function certApiApp(parts: ServiceParts): Promise<Express> {
  const { config, secrets, database, engine, networks, logger } = parts;
  return createCertApp({
    ...apiOptions(parts),
    trustDocument: trustDocumentOf(parts),
    publicUrl: parts.config.publicUrl,
    dnsServers: parts.config.dnsServers,
    postedVerifications: parts.config.postedVerifications,
    ...(parts.config.verifierPublicEndpoints === undefined
      ? {}
      : { verifierPublicEndpoints: parts.config.verifierPublicEndpoints }),
    services: {
      knex: database.knex,
      engine,
      networks,
      pins: createPinCipher(Buffer.from(secrets.pinKey, 'base64url')),
      namespace: 'trustpoint',
      now: Date.now,
      logger,
      signer: await signerOf(config, secrets.signingKey),
      files: {
        dir: join(config.dataDir, 'files'),
        maxFileBytes: config.maxFileBytes,
        store:
          config.filesS3 === undefined
            ? undefined
            : (await import('@trustpoint/cert-api/s3-file-store')).s3FileStore(config.filesS3),
      },
      urlFetch: {
        allowAddresses: config.urlFetchAllow,
        allowPrivateAddresses: config.urlFetchAllowPrivate,
      },
      pinAttempts: config.pinAttempts,
    },
  });
}

/** The asset-tracking API on these parts. */
export function trackApiApp(parts: ServiceParts): Express {
  const { config, database, engine, networks, logger } = parts;
  return createTrackApp({
    ...apiOptions(parts),
    services: {
      knex: database.knex,
      engine,
      networks,
      namespace: 'trustpoint',
      now: Date.now,
      logger,
      maxEvidenceAheadSeconds: config.maxEvidenceAheadSeconds,
    },
  });
}
