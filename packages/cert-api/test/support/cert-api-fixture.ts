import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NetworkRegistry,
  TrustDocumentSource,
  type AnchorEngine,
  type NetworkConfig,
} from '@trustpoint/chain';
import type { LocalChain } from '@trustpoint/contracts';
import { listRegistriesInUse, type DatabaseBackend } from '@trustpoint/db';
import type { TrustProxy } from '@trustpoint/http';
import type { OidcIssuerConfig } from '@trustpoint/identity';
import { openTestDatabase, type TestDatabase } from '@trustpoint/test-database';
import {
  createTestUser,
  deployRegistries,
  localWebhookSettings,
  SECOND_DEV_KEY,
  startTestAnchorEngine,
  startTestNetwork,
  tokenFor as testTokenFor,
  type TestNetworkOptions,
  type TestUserOptions,
} from '@trustpoint/test-kit/fixtures';
import type { PublicChain } from '@trustpoint/verifier';
import { createSecretSealer, type WebhookSettings } from '@trustpoint/webhooks';
import pino, { type Logger } from 'pino';
import type { PublishedFileStore } from '../../src/files/published-file-store.js';
import {
  createCertApp,
  createCertificateSigner,
  createPinCipher,
  generateSigningKey,
} from '../../src/server.js';
import type {
  CertificateSigner,
  FilesSettings,
  PinAttemptLimits,
  PostedVerificationLimits,
  UrlFetchSettings,
} from '../../src/server.js';
import { request } from './checked-request.js';

export const JWT_SECRET = randomBytes(32).toString('base64url');
const NAMESPACE = 'trustpoint';

/** A certificate API on a real database and a real local chain, with users made per test. */
export interface CertApiFixture {
  app: ReturnType<typeof createCertApp>;
  db: TestDatabase;
  chain: LocalChain;
  network: NetworkConfig;
  /** The deployment's status registry, even when `network` was configured without it. */
  statusRegistry: string;
  /** The second network, when asked for (`secondNetwork`). */
  secondNetwork: NetworkConfig | undefined;
  engine: AnchorEngine;
  /** The upload limit and the published files' directory (a fresh temporary one). */
  files: FilesSettings;
  /** The webhook settings `app` uses: 127.0.0.1 allowed, for a receiver in the test. */
  webhooks: WebhookSettings;
  /** The signer of qualified signatures `app` uses. */
  signer: CertificateSigner;
  /** Another app on the same database, chain and users whose qualified signer is `signer`. */
  appWith(signer: CertificateSigner): ReturnType<typeof createCertApp>;
  /** Certifies a random content for the token's user (201 expected), with extra body fields. */
  certify(token: string, body?: Record<string, unknown>): Promise<CreatedCertificate>;
  /**
   * A new user on a plan with the local network (or none) and `credits`, qualified for
   * signatures or not (default); returns a token.
   */
  user(options?: TestUserOptions): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

export interface CreatedCertificate {
  certID: string;
  data: { hash: string };
  access: { certificatePin?: string };
}

/** A token of the service for the user (HS256, as the launcher mints them); seconds to live. */
export function tokenFor(userId: string, secret = JWT_SECRET, expiresIn = 3_600): Promise<string> {
  return testTokenFor(userId, secret, expiresIn);
}

export async function startCertApi(
  backend: DatabaseBackend,
  options: TestNetworkOptions & {
    anchorTimeoutMs?: number;
    maxFileBytes?: number;
    urlFetch?: Partial<UrlFetchSettings>;
    /** The signer of qualified signatures; by default one with a new P-256 key. */
    signer?: CertificateSigner;
    /** The services' clock (ms since the epoch), for tests that move time; `Date.now` by default. */
    now?: () => number;
    /** Limits on wrong PINs; the defaults by default. */
    pinAttempts?: Partial<PinAttemptLimits>;
    /** Also run a second network (id 1337) on the same chain, with registries of its own. */
    secondNetwork?: boolean;
    /** Where published files go instead of the temporary directory (an S3 bucket). */
    filesStore?: PublishedFileStore;
    /** External OpenID Connect providers whose tokens the app accepts; none by default. */
    oidcIssuers?: readonly OidcIssuerConfig[];
    /** Where the app and the engine log; silent by default. */
    logger?: Logger;
    /**
     * Serve the trust document (`/.well-known/trustpoint.json`) naming this origin, as the launcher
     * does; a function when the origin is known only once the test listens. None by default.
     */
    publicOrigin?: string | (() => string);
    /** The public endpoints the web verifier may ask (read at each request); the built-in list by default. */
    verifierPublicEndpoints?: () => readonly PublicChain[];
    /** The DNS servers the service asks for domain proofs (`host:port`); the system's by default. */
    dnsServers?: readonly string[];
    /** Limits on posted copies (`POST /trustpoints/verification`); the defaults by default. */
    postedVerifications?: Partial<PostedVerificationLimits>;
    /** Certificate PDFs made at once; the default by default. */
    certificatePdfsAtOnce?: number;
    /** Count the rate limits in the test database, as the launcher does on PostgreSQL; memory by default. */
    rateLimitsInDatabase?: boolean;
    /** The clock of the limits counted in the database (their windows are minutes of the epoch). */
    rateLimitClock?: () => number;
    /** Express's `trust proxy`: `true` lets a test pose as clients of other addresses (X-Forwarded-For). */
    trustProxy?: TrustProxy;
  } = {},
): Promise<CertApiFixture> {
  const { chain, deployment, network } = await startTestNetwork(options);
  // A second network on the same chain (network id 1337), with registries and a registrar of
  // its own (the chain's second development account), for what spans networks.
  let second: NetworkConfig | undefined;
  if (options.secondNetwork === true) {
    const secondDeployment = await deployRegistries(chain.url, SECOND_DEV_KEY, chain.writeHeaders);
    second = {
      ...network,
      networkId: '1337',
      name: 'second test network',
      trustPointRegistry: secondDeployment.trustPointRegistry,
      evidenceRepository: secondDeployment.evidenceRepository,
      ...(secondDeployment.statusRegistry === undefined
        ? {}
        : { statusRegistry: secondDeployment.statusRegistry }),
      signerKey: SECOND_DEV_KEY,
    };
  }
  const db = await openTestDatabase(backend);
  const networks = new NetworkRegistry(second === undefined ? [network] : [network, second]);
  const logger = options.logger ?? pino({ level: 'silent' });
  const engine = startTestAnchorEngine(db.knex, networks, {
    logger,
    ...(options.anchorTimeoutMs === undefined ? {} : { anchorTimeoutMs: options.anchorTimeoutMs }),
  });
  const files: FilesSettings = {
    dir: await mkdtemp(join(tmpdir(), 'trustpoint-files-')),
    maxFileBytes: options.maxFileBytes ?? 16 * 1024 ** 2,
    store: options.filesStore,
  };
  const signer = options.signer ?? (await createCertificateSigner(generateSigningKey()));
  const pins = createPinCipher(randomBytes(32));
  const webhooks = localWebhookSettings();
  // One key for every app on this database, as the launcher's processes share theirs.
  const idempotencySealer = createSecretSealer(randomBytes(32));
  const { publicOrigin } = options;
  let trustDocuments: TrustDocumentSource | undefined;
  const trustDocument =
    publicOrigin === undefined
      ? undefined
      : () => {
          trustDocuments ??= new TrustDocumentSource({
            origin: typeof publicOrigin === 'string' ? publicOrigin : publicOrigin(),
            name: 'Trustpoint test service',
            networks: () => networks.list(),
            registriesInUse: () => listRegistriesInUse(db.knex),
          });
          return trustDocuments.document();
        };
  const appWith = (appSigner: CertificateSigner) =>
    createCertApp({
      ...(publicOrigin === undefined ? {} : { publicUrl: publicOrigin }),
      jwtSecret: JWT_SECRET,
      webhooks,
      idempotencySealer,
      ...(trustDocument === undefined ? {} : { trustDocument }),
      ...(options.oidcIssuers === undefined ? {} : { oidcIssuers: options.oidcIssuers }),
      ...(options.verifierPublicEndpoints === undefined
        ? {}
        : { verifierPublicEndpoints: options.verifierPublicEndpoints }),
      ...(options.dnsServers === undefined ? {} : { dnsServers: options.dnsServers }),
      ...(options.postedVerifications === undefined
        ? {}
        : { postedVerifications: options.postedVerifications }),
      ...(options.certificatePdfsAtOnce === undefined
        ? {}
        : { certificatePdfsAtOnce: options.certificatePdfsAtOnce }),
      ...(options.rateLimitsInDatabase === true ? { rateLimitDatabase: db.knex } : {}),
      ...(options.rateLimitClock === undefined ? {} : { rateLimitClock: options.rateLimitClock }),
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
      services: {
        knex: db.knex,
        engine,
        networks,
        pins,
        namespace: NAMESPACE,
        files,
        ...(options.urlFetch === undefined ? {} : { urlFetch: options.urlFetch }),
        ...(options.pinAttempts === undefined ? {} : { pinAttempts: options.pinAttempts }),
        now: options.now ?? Date.now,
        logger,
        signer: appSigner,
      },
    });
  const app = appWith(signer);
  return {
    app,
    db,
    chain,
    network,
    statusRegistry: deployment.statusRegistry ?? '',
    secondNetwork: second,
    engine,
    files,
    webhooks,
    signer,
    appWith,
    async certify(token, body = {}) {
      const response = await request(app)
        .post('/cert/v2/certificates?type=content&networkId=31337')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'Doc', description: '', content: { n: Math.random() }, ...body });
      if (response.status !== 201) {
        throw new Error(
          `certify: expected 201, got ${String(response.status)} ${JSON.stringify(response.body)}`,
        );
      }
      return response.body.data as CreatedCertificate;
    },
    async user(userOptions) {
      const id = await createTestUser(db.knex, userOptions);
      return { id, token: await tokenFor(id) };
    },
    async close() {
      await engine.stop();
      await db.close();
      await chain.stop();
    },
  };
}
