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
import { CERT_API_BASE_PATH } from '@trustpoint/cert-api';
import { createDatabase, type Database } from '@trustpoint/db';
import { serviceObservability } from '@trustpoint/observability';
import { TRACK_API_BASE_PATH } from '@trustpoint/track-api';
import type { Logger } from 'pino';
import { JsonRpcProvider, Wallet } from 'ethers';
import { wantsEmbeddedChain } from './embedded-chain-choice.js';
import type { LauncherConfig } from './launcher-config.js';
import { closeGracefully, listen } from './http-listener.js';
import { ensureLocalUser, loadOrCreateSecrets, mintLocalToken } from './local-identity.js';
import {
  certApiApp,
  requireProvisioningPlans,
  startWebhookWorker,
  trackApiApp,
  type ServiceParts,
} from './service-parts.js';

/**
 * The signer of qualified signatures; a SIGNING_KEY that is no usable key stops the start. The
 * retired keys were checked with the configuration, so an error here is the current key's.
 */
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

    const secrets = await loadOrCreateSecrets(
      join(config.dataDir, 'secrets.json'),
      config.sharedSecrets,
    );
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

    const parts: ServiceParts = {
      config,
      secrets,
      database,
      engine,
      networks,
      logger,
      observability,
    };
    // Any number of processes may run a worker on one database; this one runs beside the APIs.
    const webhookWorker = startWebhookWorker(parts);
    stops.push(() => webhookWorker.stop());
    await requireProvisioningPlans(parts, (message) => new Error(message));

    const certServer = await listen(await certApiApp(parts), config.apiHost, config.certApiPort);
    stops.push(() => closeGracefully(certServer, config.shutdownTimeoutMs));

    // Same database, engine, secrets and local user as the certificate API; a port of its own.
    const trackServer = await listen(trackApiApp(parts), config.apiHost, config.trackApiPort);
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
