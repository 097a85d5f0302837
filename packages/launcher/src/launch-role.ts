import type { Server } from 'node:http';
import { join } from 'node:path';
import {
  AnchorEngine,
  loadNetworks,
  NetworkRegistry,
  shareNetworkHealth,
  watchNetworkHealth,
} from '@trustpoint/chain';
import { CERT_API_BASE_PATH } from '@trustpoint/cert-api';
import { createDatabase, pendingMigrations, type Database } from '@trustpoint/db';
import { serviceObservability, startHealthServer } from '@trustpoint/observability';
import { TRACK_API_BASE_PATH } from '@trustpoint/track-api';
import type { Logger } from 'pino';
import { closeGracefully, listen } from './http-listener.js';
import type { LauncherConfig } from './launcher-config.js';
import { servicePidHolding } from './service-pid-file.js';
import { loadOrCreateSecrets } from './local-identity.js';
import {
  certApiApp,
  requireProvisioningPlans,
  startWebhookWorker,
  trackApiApp,
  type ServiceParts,
} from './service-parts.js';

/**
 * What `trustpoint serve <role>` runs in one process, so that each part scales on its own: `cert`
 * and `track` serve an API (they enqueue records and wait for them, but never anchor), `anchor`
 * runs the anchoring engine and the webhook worker. Any number of each share one PostgreSQL.
 */
export const SERVER_ROLES = ['cert', 'track', 'anchor'] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

export interface RunningRole {
  role: ServerRole;
  /** The API's base URL (cert and track). */
  url: string | undefined;
  /** The API's listener (cert and track). */
  server: Server | undefined;
  database: Database;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  /**
   * Stops in order: the listener gracefully (no new connections, requests in flight answered
   * within `shutdownTimeoutMs`), then the engine (a batch being claimed or settled finishes its
   * transaction; nothing stays claimed: signed batches are in the database, and any anchorer with
   * the registrar's key sends and settles them), the workers, the pool.
   */
  stop(): Promise<void>;
}

/** Why a role cannot start, said once with what to do about it. */
export class RoleConfigError extends Error {
  override readonly name = 'RoleConfigError';
}

/**
 * The networks a role anchors on or waits for. Without a networks file, the local chain must be
 * running already at CHAIN_HOST:CHAIN_PORT with its registries in the data directory's
 * deployments file (`trustpoint serve all` started it, or a chain node of its own): roles never
 * start a chain.
 */
async function roleNetworks(role: ServerRole, config: LauncherConfig, logger: Logger) {
  const deploymentsFile = join(config.dataDir, 'deployments.json');
  const localChain = `http://${config.chainHost}:${String(config.chainPort)}`;
  const needs = `trustpoint serve ${role} needs TRUSTPOINT_NETWORKS_FILE or a chain already running at ${localChain} with its registries in ${deploymentsFile}`;
  let networks: NetworkRegistry;
  try {
    networks = new NetworkRegistry(
      await loadNetworks({
        networksFile: config.networksFile,
        deploymentsFile,
        embeddedRpcUrl: localChain,
      }),
    );
  } catch (error) {
    const reason = (error as Error).message;
    throw new RoleConfigError(config.networksFile === undefined ? `${needs}: ${reason}` : reason);
  }
  if (config.networksFile === undefined) {
    try {
      await networks.verifyChainIds({ requireReachable: true });
    } catch (error) {
      throw new RoleConfigError(`${needs}: ${(error as Error).message}`);
    }
  } else {
    // Configured networks come and go: an unreachable node is retried, and readiness tells.
    await networks.verifyChainIds({
      onUnreachable: (network, error) => {
        logger.warn(
          { networkId: network.networkId, err: error.message },
          'node unreachable at start; will retry',
        );
      },
    });
  }
  return networks;
}

/**
 * The role's pool on `DATABASE_URL`, migrated at start unless `MIGRATE_AT_START=false`; then a
 * database that lacks migrations stops the start (run `trustpoint migrate`).
 */
function requireDatabaseUrl(role: ServerRole, config: LauncherConfig): string {
  if (config.databaseUrl === undefined) {
    throw new RoleConfigError(
      `trustpoint serve ${role} needs DATABASE_URL (PostgreSQL): the embedded database belongs to one process. For everything in one process on the embedded defaults, run trustpoint serve all (or trustpoint start)`,
    );
  }
  return config.databaseUrl;
}

async function roleDatabase(role: ServerRole, config: LauncherConfig): Promise<Database> {
  const database = await createDatabase({
    url: requireDatabaseUrl(role, config),
    migrate: config.migrateAtStart,
    applicationName: `trustpoint-${role}`,
  });
  if (!config.migrateAtStart) {
    const pending = await pendingMigrations(database.knex);
    if (pending.length > 0) {
      await database.close();
      throw new RoleConfigError(
        `the database lacks ${String(pending.length)} migration(s) (${pending.join(', ')}) and MIGRATE_AT_START=false: run trustpoint migrate first`,
      );
    }
  }
  return database;
}

/**
 * An anchoring role beside a `trustpoint start` (or `serve all`) on the embedded database of the
 * same data directory would send with the same registrar key (the data directory's chain and
 * deployments) from another database: the two engines would collide on the key's nonces and
 * each would anchor records the other does not know. Refused, saying what to run instead.
 */
async function refuseSharedRegistrarKey(config: LauncherConfig): Promise<void> {
  const holder = await servicePidHolding(config.dataDir);
  if (holder === undefined) return;
  throw new RoleConfigError(
    `trustpoint serve anchor would share its registrar key with the service running on ${config.dataDir} (pid ${String(holder)}, trustpoint start), which anchors from its own embedded database: their transactions would collide on the key's nonces. Give the roles a chain of their own (node contracts/dist/scripts/local-chain.js with another TRUSTPOINT_DATA_DIR, see the README), or stop pid ${String(holder)}`,
  );
}

/** Starts one role (see `SERVER_ROLES`) from the shared configuration; rejects if it cannot. */
export async function launchRole(
  role: ServerRole,
  config: LauncherConfig,
  logger: Logger,
): Promise<RunningRole> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    // Said before anything else is looked at: it is the first thing a role needs.
    requireDatabaseUrl(role, config);
    if (role === 'anchor') await refuseSharedRegistrarKey(config);
    const networks = await roleNetworks(role, config, logger);
    const database = await roleDatabase(role, config);
    stops.push(() => database.close());
    // One secrets file per data directory; every process that shares it makes and checks the same
    // tokens, PINs and webhook secrets.
    const secrets = await loadOrCreateSecrets(
      join(config.dataDir, 'secrets.json'),
      config.sharedSecrets,
    );

    if (role === 'anchor') {
      const engine = new AnchorEngine(database.knex, networks, { logger });
      // The API processes learn each registrar's health from what this process finds.
      engine.observe({ health: shareNetworkHealth(database.knex, { logger }) });
      engine.start();
      stops.push(() => engine.stop());
      // Health, readiness and metrics on a small port of its own (HEALTH_PORT): no API here.
      const observability = serviceObservability({
        knex: database.knex,
        networks: networks.list(),
        engine,
        metricsToken: config.metricsToken,
        labels: { role },
      });
      const webhookWorker = startWebhookWorker({
        config,
        secrets,
        database,
        engine,
        networks,
        logger,
        observability,
      });
      stops.push(() => webhookWorker.stop());
      const healthServer = await startHealthServer({
        host: config.healthHost,
        port: config.healthPort,
        checks: observability.checks,
        registry: observability.registry,
        metricsToken: config.metricsToken,
      });
      stops.push(async () => {
        await healthServer.close();
        observability.close();
      });
      return { role, url: undefined, server: undefined, database, engine, networks, stop: stopAll };
    }

    // Enqueues and waits; the anchoring processes anchor, and tell the registrars' health through
    // the database, so a network that cannot pay answers 503 at once here too.
    const engine = new AnchorEngine(database.knex, networks, { logger, anchoring: false });
    stops.push(() => engine.stop());
    const health = watchNetworkHealth(
      database.knex,
      engine,
      networks.list().map((network) => network.networkId),
      { logger },
    );
    stops.push(() => health.stop());

    await requireProvisioningPlans({ config, database }, (message) => new RoleConfigError(message));
    // Health, readiness and metrics at the root of the API's listener.
    const observability = serviceObservability({
      knex: database.knex,
      networks: networks.list(),
      engine,
      metricsToken: config.metricsToken,
      labels: { role },
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
    const app = role === 'cert' ? await certApiApp(parts) : trackApiApp(parts);
    const port = role === 'cert' ? config.certApiPort : config.trackApiPort;
    const server = await listen(app, config.apiHost, port);
    stops.push(() => closeGracefully(server, config.shutdownTimeoutMs));
    const basePath = role === 'cert' ? CERT_API_BASE_PATH : TRACK_API_BASE_PATH;
    return {
      role,
      url: `http://${config.apiHost}:${String(port)}${basePath}`,
      server,
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
