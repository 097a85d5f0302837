import { join } from 'node:path';
import {
  AnchorEngine,
  loadNetworks,
  NetworkRegistry,
  startAnchoringThread,
} from '@trustpoint/chain';
import {
  ensureDeployment,
  HARDHAT_DEV_KEY,
  startLocalChain,
  type TrustpointDeployment,
} from '@trustpoint/contracts';
import {
  CERT_API_BASE_PATH,
  createCertApp,
  createCertificateSigner,
  createPinCipher,
  s3FileStore,
  type CertificateSigner,
} from '@trustpoint/cert-api';
import { createDatabase, findPlan, type Database } from '@trustpoint/db';
import { serviceObservability } from '@trustpoint/observability';
import { createTrackApp, TRACK_API_BASE_PATH } from '@trustpoint/track-api';
import {
  createSecretSealer,
  deriveWebhookKey,
  WebhookWorker,
  type WebhookSettings,
} from '@trustpoint/webhooks';
import type { Logger } from 'pino';
import { JsonRpcProvider, Wallet } from 'ethers';
import { wantsEmbeddedChain } from './embedded-chain-choice.js';
import type { LauncherConfig } from './launcher-config.js';
import { closeGracefully, listen } from './http-listener.js';
import { ensureLocalUser, loadOrCreateSecrets, mintLocalToken } from './local-identity.js';

/**
 * The signer of qualified signatures; a SIGNING_KEY that is no usable key stops the start. The
 * retired keys were checked with the configuration, so an error here is the current key's.
 */
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

/** The embedded development chain, when this start runs it. */
export interface EmbeddedChain {
  url: string;
  deployment: TrustpointDeployment;
  /** Transactions replayed from the chain's journal at start. */
  restoredTransactions: number;
}

export interface RunningTrustpoint {
  /** Undefined when a networks file is given that does not name the embedded chain. */
  embeddedChain: EmbeddedChain | undefined;
  certApiUrl: string;
  trackApiUrl: string;
  token: string;
  /** A token for any user of this service (the local user's is `token`). */
  mintToken(userId: string): Promise<string>;
  database: Database;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  stop(): Promise<void>;
}

/** Starts the journaled local chain and deploys the registries on it once (reused after). */
export async function startEmbeddedChain(
  config: LauncherConfig,
  deploymentsFile: string,
): Promise<EmbeddedChain & { stop: () => Promise<void> }> {
  const chain = await startLocalChain({
    dataDir: join(config.dataDir, 'chain'),
    host: config.chainHost,
    port: config.chainPort,
  });
  try {
    const provider = new JsonRpcProvider(chain.url, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    const { deployment } = await ensureDeployment(
      new Wallet(HARDHAT_DEV_KEY, provider),
      deploymentsFile,
    );
    provider.destroy();
    return {
      url: chain.url,
      deployment,
      restoredTransactions: chain.replayed,
      stop: () => chain.stop(),
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

/**
 * Brings up the whole service, in dependency order: the local chain (with the registries deployed
 * once) unless a networks file leaves it out, the embedded database, the anchoring engine, the
 * APIs. Everything lives under `dataDir`, so a second start resumes the same chain, database and
 * deployments. The local user's plan is exactly the networks this start anchors on.
 */
export async function launch(config: LauncherConfig, logger: Logger): Promise<RunningTrustpoint> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const deploymentsFile = join(config.dataDir, 'deployments.json');
    let embeddedChain: EmbeddedChain | undefined;
    if (
      await wantsEmbeddedChain(config.networksFile, {
        host: config.chainHost,
        port: config.chainPort,
      })
    ) {
      const { stop, ...chain } = await startEmbeddedChain(config, deploymentsFile);
      stops.push(stop);
      embeddedChain = chain;
    } else {
      logger.info(
        { networksFile: config.networksFile },
        'the networks file does not name the embedded chain (chain id 31337 at CHAIN_HOST:CHAIN_PORT): not starting it',
      );
    }

    const networks = new NetworkRegistry(
      await loadNetworks({
        networksFile: config.networksFile,
        deploymentsFile,
        ...(embeddedChain === undefined ? {} : { embeddedRpcUrl: embeddedChain.url }),
      }),
    );
    await networks.verifyChainIds({ requireReachable: true });

    const secrets = await loadOrCreateSecrets(join(config.dataDir, 'secrets.json'));
    const database = await createDatabase(
      config.databaseUrl
        ? { url: config.databaseUrl }
        : { dataDir: join(config.dataDir, 'pgdata') },
    );
    stops.push(() => database.close());
    await ensureLocalUser(
      database.knex,
      networks
        .list()
        .filter((network) => network.localUser === true)
        .map((network) => network.networkId),
    );

    // On PostgreSQL the anchorers run in a thread of their own, with connections of their own:
    // request bursts never starve them, and their signing and encoding use the other core. The
    // embedded database lives inside this thread, so there they run here.
    const engine = new AnchorEngine(database.knex, networks, {
      logger,
      anchoring: config.databaseUrl === undefined,
    });
    engine.start();
    if (config.databaseUrl !== undefined) {
      const anchoring = await startAnchoringThread(engine, {
        databaseUrl: config.databaseUrl,
        networks: networks.list(),
        logLevel: logger.level,
        logger,
      });
      stops.push(() => anchoring.stop());
    }
    stops.push(() => engine.stop());

    // Health, readiness and metrics: one registry for the process, mounted on both listeners.
    const observability = serviceObservability({
      knex: database.knex,
      networks: networks.list(),
      engine,
      metricsToken: config.metricsToken,
    });
    stops.push(() => {
      observability.close();
      return Promise.resolve();
    });

    // Webhook secrets are sealed under a key derived from the PIN key: nothing new to keep. The
    // endpoints' addresses follow the URL certificates' policy (URL_FETCH_ALLOW[_PRIVATE]).
    const webhooks: WebhookSettings = {
      sealer: createSecretSealer(deriveWebhookKey(Buffer.from(secrets.pinKey, 'base64url'))),
      addressPolicy: {
        allowAddresses: config.urlFetchAllow,
        allowPrivateAddresses: config.urlFetchAllowPrivate,
      },
    };
    // Any number of processes may run a worker on one database; this one runs beside the APIs.
    const webhookWorker = new WebhookWorker({
      knex: database.knex,
      sealer: webhooks.sealer,
      addressPolicy: webhooks.addressPolicy,
      logger,
      onAttempt: observability.onWebhookAttempt,
    });
    webhookWorker.start();
    stops.push(() => webhookWorker.stop());

    // A provider whose users would be provisioned on a plan that does not exist stops the start.
    for (const { issuer, provision } of config.oidcIssuers) {
      if (
        provision !== undefined &&
        (await findPlan(database.knex, provision.planId)) === undefined
      ) {
        throw new Error(
          `OIDC_ISSUERS: users of ${issuer} are provisioned on plan "${provision.planId}", which does not exist`,
        );
      }
    }

    const certApp = createCertApp({
      jwtSecret: secrets.jwtSecret,
      oidcIssuers: config.oidcIssuers,
      webhooks,
      requestsPerMinute: config.requestsPerMinute,
      // On PostgreSQL the limits are counted in the database, shared with any other process.
      rateLimitDatabase: config.databaseUrl === undefined ? undefined : database.knex,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      observability,
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
          store: config.filesS3 === undefined ? undefined : s3FileStore(config.filesS3),
        },
        urlFetch: {
          allowAddresses: config.urlFetchAllow,
          allowPrivateAddresses: config.urlFetchAllowPrivate,
        },
        pinAttempts: config.pinAttempts,
      },
    });
    const certServer = await listen(certApp, config.apiHost, config.certApiPort);
    stops.push(() => closeGracefully(certServer, config.shutdownTimeoutMs));

    // Same database, engine, secrets and local user as the certificate API; a port of its own.
    const trackApp = createTrackApp({
      jwtSecret: secrets.jwtSecret,
      oidcIssuers: config.oidcIssuers,
      webhooks,
      requestsPerMinute: config.requestsPerMinute,
      // On PostgreSQL the limits are counted in the database, shared with any other process.
      rateLimitDatabase: config.databaseUrl === undefined ? undefined : database.knex,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      observability,
      services: {
        knex: database.knex,
        engine,
        networks,
        namespace: 'trustpoint',
        now: Date.now,
        logger,
      },
    });
    const trackServer = await listen(trackApp, config.apiHost, config.trackApiPort);
    stops.push(() => closeGracefully(trackServer, config.shutdownTimeoutMs));

    return {
      embeddedChain,
      certApiUrl: `http://${config.apiHost}:${String(config.certApiPort)}${CERT_API_BASE_PATH}`,
      trackApiUrl: `http://${config.apiHost}:${String(config.trackApiPort)}${TRACK_API_BASE_PATH}`,
      token: await mintLocalToken(secrets.jwtSecret),
      mintToken: (userId) => mintLocalToken(secrets.jwtSecret, userId),
      database,
      engine,
      networks,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
