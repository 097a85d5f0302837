import type { Server } from 'node:http';
import { join } from 'node:path';
import {
  AnchorEngine,
  loadNetworks,
  NetworkConfigError,
  NetworkRegistry,
  shareNetworkHealth,
  startAnchoringThread,
  watchNetworkHealth,
  withoutNodeUrls,
} from '@trustpoint/chain';
import { CERT_API_BASE_PATH } from '@trustpoint/cert-api';
import {
  anchoringAnnouncer,
  createDatabase,
  listenForAnchoring,
  pendingMigrations,
  startEmbeddedMaintenance,
  type Database,
} from '@trustpoint/db';
import { serviceObservability, startHealthServer } from '@trustpoint/observability';
import {
  chainWriteHeaders,
  readChainWriteKey,
  type TrustpointDeployment,
} from '@trustpoint/registry-abi';
import { TRACK_API_BASE_PATH } from '@trustpoint/track-api';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { claimDataDir } from './data-dir-lock.js';
import { embeddedChainHeaders, wantsEmbeddedChain } from './embedded-chain-choice.js';
import { closeGracefully, listen } from './http-listener.js';
import { releaseMemoryWhenIdle } from './idle-memory.js';
import type { LauncherConfig } from './launcher-config.js';
import { ensureLocalUser, loadOrCreateSecrets, mintLocalToken } from './local-identity.js';
import { databaseUrlError, RoleConfigError } from './role-config-error.js';
import { servicePidHolding } from './service-pid-file.js';
import {
  certApiApp,
  requireProvisioningPlans,
  startWebhookWorker,
  trackApiApp,
  type ServiceParts,
} from './service-parts.js';

/**
 * The service's one composition root. A process runs a role of this table: `all` is everything in
 * one process (`trustpoint start`, `npm start`, `serve all`, the benches), and `cert`, `track` and
 * `anchor` are its parts, so that each scales on its own on one shared PostgreSQL (`serve <role>`,
 * the apps of `apps/`). Every role is built by `launch` from the same parts, in the same order.
 */
/**
 * How often waiting requests look at their records in the database when they are told as soon as
 * their records settle: by this process's own anchorers (start, serve all), or through
 * PostgreSQL's notifications (an API role). The look is then a fallback: deadlines, a record
 * settled some other way, a notification lost with its connection.
 */
const TOLD_WAIT_POLL_MS = 1_000;

export const ROLE_TABLE = {
  all: {
    apis: ['cert', 'track'],
    anchors: true,
    /** Starts the embedded chain unless a networks file leaves it out; may use PGlite. */
    ownsMachine: true,
  },
  /** The certificate API alone: enqueues records and waits for them, never anchors. */
  cert: { apis: ['cert'], anchors: false, ownsMachine: false },
  /** The asset-tracking API alone: the same. */
  track: { apis: ['track'], anchors: false, ownsMachine: false },
  /** The anchoring engine and the webhook worker; health and metrics on HEALTH_PORT. */
  anchor: { apis: [], anchors: true, ownsMachine: false },
} as const satisfies Record<
  string,
  { apis: readonly ('cert' | 'track')[]; anchors: boolean; ownsMachine: boolean }
>;

export type LaunchRole = keyof typeof ROLE_TABLE;
/** The roles that run beside others on one PostgreSQL (everything but `all`). */
export const SERVER_ROLES = ['cert', 'track', 'anchor'] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

export { RoleConfigError };

export interface EmbeddedChain {
  url: string;
  /** What a writer sends for the chain to relay anything but reads: never publish or log it. */
  writeHeaders: Readonly<Record<string, string>>;
  deployment: TrustpointDeployment;
  /** Transactions replayed from the chain's journal at start. */
  restoredTransactions: number;
  /**
   * Settles when the chain's node process ends: on `stop`, or when it dies (killed, out of
   * memory). The service cannot anchor without it; `serveAll` stops when it dies.
   */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** What every launched role holds. */
export interface RunningRole {
  role: LaunchRole;
  /** The API's base URL (cert and track; the certificate API's for all). */
  url: string | undefined;
  /** The API's listener (cert and track; the certificate API's for all). */
  server: Server | undefined;
  database: Database;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  /** A token for any user of this service, signed with the data directory's secret. */
  mintToken(userId: string): Promise<string>;
  /**
   * Stops in order: the listeners gracefully (no new connections, requests in flight answered
   * within `shutdownTimeoutMs`), then the engine (a batch being claimed or settled finishes its
   * transaction; nothing stays claimed: signed batches are in the database, and any anchorer with
   * the registrar's key sends and settles them), the workers, the pool, the chain.
   */
  stop(): Promise<void>;
}

/** The whole service in one process (role `all`). */
export interface RunningTrustpoint extends RunningRole {
  /** Undefined when a networks file is given that does not name the embedded chain. */
  embeddedChain: EmbeddedChain | undefined;
  certApiUrl: string;
  trackApiUrl: string;
  /** The local user's token (an administrator of this machine's instance). */
  token: string;
}

/**
 * The development chain (a Hardhat node, in @trustpoint/contracts), loaded only when the embedded
 * chain is wanted. A production install of the command leaves it out (an optional peer
 * dependency): its roles, and a start whose networks file does not name the embedded chain, never
 * load it.
 */
async function loadDevChain(): Promise<typeof import('@trustpoint/contracts/dev-chain')> {
  try {
    return await import('@trustpoint/contracts/dev-chain');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      message.includes("'@trustpoint/contracts")
    ) {
      throw new Error(
        'The embedded development chain is not installed here (a production install leaves out @trustpoint/contracts and its Hardhat): name the networks to anchor on in TRUSTPOINT_NETWORKS_FILE, or run from the workspace (npm start)',
      );
    }
    throw error;
  }
}

/** Starts the journaled local chain and deploys the registries on it once (reused after). */
export async function startEmbeddedChain(
  config: LauncherConfig,
  deploymentsFile: string,
): Promise<EmbeddedChain & { stop: () => Promise<void> }> {
  const { startDevChain } = await loadDevChain();
  const chain = await startDevChain({
    dataDir: join(config.dataDir, 'chain'),
    host: config.chainHost,
    port: config.chainPort,
    deploymentsFile,
  });
  return {
    url: chain.url,
    writeHeaders: chain.writeHeaders,
    deployment: chain.deployment,
    restoredTransactions: chain.restoredTransactions,
    ended: chain.ended,
    stop: () => chain.stop(),
  };
}

/**
 * The networks a role anchors on or waits for. Without a networks file, the local chain must be
 * running already at CHAIN_HOST:CHAIN_PORT with its registries in the data directory's
 * deployments file (`trustpoint serve all` started it, or a chain node of its own): roles never
 * start a chain.
 */
async function roleNetworks(
  role: ServerRole,
  config: LauncherConfig,
  deploymentsFile: string,
  logger: Logger,
) {
  const localChain = `http://${config.chainHost}:${String(config.chainPort)}`;
  const needs = `trustpoint serve ${role} needs TRUSTPOINT_NETWORKS_FILE or a chain already running at ${localChain} with its registries in ${deploymentsFile}`;
  let networks: NetworkRegistry;
  try {
    // The embedded chain's write credential, from the data directory the chain shares with the
    // roles (compose: the /data volume); absent for a chain node that needs none.
    const writeKey = await readChainWriteKey(join(config.dataDir, 'chain'));
    networks = new NetworkRegistry(
      await loadNetworks({
        networksFile: config.networksFile,
        deploymentsFile,
        embeddedRpcUrl: localChain,
        rpcHeadersFor: embeddedChainHeaders(
          { host: config.chainHost, port: config.chainPort },
          writeKey === undefined ? undefined : chainWriteHeaders(writeKey),
        ),
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
    // Configured networks come and go: an unreachable node is retried, and readiness tells. A
    // node on another chain than the file says is a configuration to change.
    try {
      await networks.verifyChainIds({
        onUnreachable: (network, error) => {
          logger.warn(
            { networkId: network.networkId, err: withoutNodeUrls(error.message) },
            'node unreachable at start; will retry',
          );
        },
      });
    } catch (error) {
      if (error instanceof NetworkConfigError) throw new RoleConfigError(error.message);
      throw error;
    }
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
  const url = requireDatabaseUrl(role, config);
  const database = await createDatabase({
    url,
    migrate: config.migrateAtStart,
    applicationName: `trustpoint-${role}`,
  }).catch((error: unknown) => {
    throw databaseUrlError(error, url);
  });
  if (!config.migrateAtStart) {
    const pending = await pendingMigrations(database.knex).catch(async (error: unknown) => {
      await database.close();
      throw databaseUrlError(error, url);
    });
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

/** The database a role works on: PGlite in the data directory is for `all` alone. */
async function databaseOf(role: LaunchRole, config: LauncherConfig): Promise<Database> {
  if (ROLE_TABLE[role].ownsMachine) {
    return createDatabase(
      config.databaseUrl
        ? { url: config.databaseUrl }
        : { dataDir: join(config.dataDir, 'pgdata') },
    ).catch((error: unknown) => {
      throw databaseUrlError(error, config.databaseUrl);
    });
  }
  return roleDatabase(role as ServerRole, config);
}

/**
 * Brings up a role of `ROLE_TABLE`, in dependency order: the local chain (role `all`, with the
 * registries deployed once, unless a networks file leaves it out), the networks, the database, the
 * anchoring engine, the webhook worker, the APIs. Everything lives under `dataDir`, so a second
 * start resumes the same chain, database and deployments. Rejects, having stopped what it started,
 * when the role cannot start (`RoleConfigError` for a configuration that cannot work).
 */
export async function launch(
  role: 'all',
  config: LauncherConfig,
  logger: Logger,
): Promise<RunningTrustpoint>;
export async function launch(
  role: LaunchRole,
  config: LauncherConfig,
  logger: Logger,
): Promise<RunningRole>;
export async function launch(
  role: LaunchRole,
  config: LauncherConfig,
  logger: Logger,
): Promise<RunningRole | RunningTrustpoint> {
  const { apis, anchors, ownsMachine } = ROLE_TABLE[role];
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const deploymentsFile = join(config.dataDir, 'deployments.json');
    let embeddedChain: EmbeddedChain | undefined;
    let networks: NetworkRegistry;
    if (ownsMachine) {
      const chainHere = await wantsEmbeddedChain(config.networksFile, {
        host: config.chainHost,
        port: config.chainPort,
      });
      // The data directory's embedded database and chain are this process's alone, before either
      // is opened: a second start on them would run its own beside them.
      if (config.databaseUrl === undefined || chainHere) {
        stops.push(await claimDataDir(config.dataDir));
      }
      if (chainHere) {
        const { stop, ...chain } = await startEmbeddedChain(config, deploymentsFile);
        stops.push(stop);
        embeddedChain = chain;
      } else {
        logger.info(
          { networksFile: config.networksFile },
          'the networks file does not name the embedded chain (chain id 31337 at CHAIN_HOST:CHAIN_PORT): not starting it',
        );
      }
      networks = new NetworkRegistry(
        await loadNetworks({
          networksFile: config.networksFile,
          deploymentsFile,
          ...(embeddedChain === undefined
            ? {}
            : {
                embeddedRpcUrl: embeddedChain.url,
                // The port it bound: CHAIN_PORT, or the system's pick for 0.
                rpcHeadersFor: embeddedChainHeaders(
                  { host: config.chainHost, port: Number(new URL(embeddedChain.url).port) },
                  embeddedChain.writeHeaders,
                ),
              }),
        }),
      );
      await networks.verifyChainIds({ requireReachable: true });
    } else {
      // Said before anything else is looked at: it is the first thing a role needs.
      requireDatabaseUrl(role as ServerRole, config);
      if (anchors) await refuseSharedRegistrarKey(config);
      networks = await roleNetworks(role as ServerRole, config, deploymentsFile, logger);
    }

    const database = await databaseOf(role, config);
    stops.push(() => database.close());
    if (database.backend === 'pglite') {
      // The embedded engine has no autovacuum of its own: without it the planner never learns the
      // tables' sizes and dead row versions stay (see `startEmbeddedMaintenance`).
      const maintenance = startEmbeddedMaintenance(database.knex, {
        onPass: (tables) => {
          logger.debug({ tables }, 'embedded database vacuumed and analysed');
        },
        onError: (error) => {
          logger.warn({ err: String(error) }, 'embedded database maintenance failed; retrying');
        },
      });
      stops.push(() => maintenance.stop());
    }
    // One secrets file per data directory; every process that shares it makes and checks the same
    // tokens, PINs and webhook secrets.
    const secrets = await loadOrCreateSecrets(
      join(config.dataDir, 'secrets.json'),
      config.sharedSecrets,
    );
    if (ownsMachine) {
      // The local user's plan is exactly the networks this start anchors on.
      await ensureLocalUser(
        database.knex,
        networks
          .list()
          .filter((network) => network.localUser === true)
          .map((network) => network.networkId),
      );
    }

    let engine: AnchorEngine;
    if (!anchors) {
      // Enqueues and waits; the anchoring processes anchor, and tell the registrars' health
      // through the database, so a network that cannot pay answers 503 at once here too.
      // Told of settled records by the anchoring processes (PostgreSQL's notifications, below).
      engine = new AnchorEngine(database.knex, networks, {
        logger,
        anchoring: false,
        waitPollMs: TOLD_WAIT_POLL_MS,
      });
      stops.push(() => engine.stop());
      const health = watchNetworkHealth(
        database.knex,
        engine,
        networks.list().map((network) => network.networkId),
        { logger },
      );
      stops.push(() => health.stop());
    } else if (ownsMachine) {
      // On PostgreSQL the anchorers run in a thread of their own, with connections of their own:
      // request bursts never starve them, and their signing and encoding use the other core. On
      // the embedded database they run here: its engine has a thread of its own already, and a
      // third thread costs memory at rest and was slower (bench:create 8-22% fewer certificates a
      // second: bench/results/tails-and-cycles-2026-11-28.md).
      // Every record this process waits on is anchored by this process, whose anchorers answer
      // their waiters as they settle: the waiters' own look at the database is only a fallback
      // (deadlines, a record settled some other way), once a second rather than ten times. On the
      // embedded engine ten looks a second at every waiting record took 7% of its thread under
      // load (bench:create, 1,000 clients).
      engine = new AnchorEngine(database.knex, networks, {
        logger,
        anchoring: config.databaseUrl === undefined,
        waitPollMs: TOLD_WAIT_POLL_MS,
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
    } else {
      engine = new AnchorEngine(database.knex, networks, { logger });
      // The API processes learn each registrar's health from what this process finds.
      engine.observe({ health: shareNetworkHealth(database.knex, { logger }) });
      engine.start();
      stops.push(() => engine.stop());
    }
    if (!ownsMachine && config.databaseUrl !== undefined) {
      // Processes of a role tell each other through the database, after their commits: an API
      // process that queued records, the anchoring processes (which look at once, and rest
      // between looks when idle); an anchoring process that settled records, the API processes
      // (which answer their waiting requests at once rather than at their next look).
      const { knex } = database;
      const announcer = anchoringAnnouncer(knex, (error) => {
        logger.debug({ err: String(error) }, 'could not announce to the other processes');
      });
      engine.observe(
        anchors
          ? {
              anchored: () => {
                announcer.settled();
              },
              failed: () => {
                announcer.settled();
              },
            }
          : {
              committedHere: () => {
                announcer.queued();
              },
            },
      );
      const notifications = await listenForAnchoring(
        {
          url: config.databaseUrl,
          applicationName: `trustpoint-${role}-notifications`,
          onConnectionChange: (state, error) => {
            if (state === 'lost') {
              logger.warn(
                { err: error instanceof Error ? error.message : 'connection ended' },
                'lost the database connection that hears of queued and anchored records; connecting again',
              );
            } else logger.debug('listening for queued and anchored records');
          },
        },
        anchors
          ? {
              queued: () => {
                engine.wake();
              },
            }
          : {
              settled: () => {
                engine.settledElsewhere();
              },
            },
      );
      stops.push(() => notifications.close());
    }

    // Health, readiness and metrics: one registry for the process, at the root of each API's
    // listener, or on a small port of its own (HEALTH_PORT) where the role serves no API.
    const observability = serviceObservability({
      knex: database.knex,
      networks: networks.list(),
      engine,
      metricsToken: config.metricsToken,
      ...(ownsMachine ? {} : { labels: { role } }),
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
    if (anchors) {
      // Any number of processes may run a worker on one database.
      const webhookWorker = startWebhookWorker(parts);
      stops.push(() => webhookWorker.stop());
    }
    if (apis.length === 0) {
      const healthServer = await startHealthServer({
        host: config.healthHost,
        port: config.healthPort,
        checks: observability.checks,
        registry: observability.registry,
        metricsToken: config.metricsToken,
      });
      stops.push(() => healthServer.close());
    } else {
      await requireProvisioningPlans(parts, (message) =>
        ownsMachine ? new Error(message) : new RoleConfigError(message),
      );
    }

    // Each API on a port of its own; the same database, engine, secrets and users.
    const listeners: { api: 'cert' | 'track'; url: string; server: Server }[] = [];
    for (const api of apis) {
      const app: Express = api === 'cert' ? await certApiApp(parts) : trackApiApp(parts);
      const port = api === 'cert' ? config.certApiPort : config.trackApiPort;
      const server = await listen(app, config.apiHost, port);
      stops.push(() => closeGracefully(server, config.shutdownTimeoutMs));
      const basePath = api === 'cert' ? CERT_API_BASE_PATH : TRACK_API_BASE_PATH;
      listeners.push({ api, url: `http://${config.apiHost}:${String(port)}${basePath}`, server });
    }

    // What the start grew and left behind goes back to the system once the process is quiet.
    const idleMemory = releaseMemoryWhenIdle({
      logger,
      alsoRelease: () => database.releaseMemory?.(),
    });
    stops.push(() => {
      idleMemory.stop();
      return Promise.resolve();
    });

    const running: RunningRole = {
      role,
      url: listeners[0]?.url,
      server: listeners[0]?.server,
      database,
      engine,
      networks,
      mintToken: (userId) => mintLocalToken(secrets.jwtSecret, userId),
      stop: stopAll,
    };
    if (!ownsMachine) return running;
    const urlOf = (api: 'cert' | 'track') =>
      listeners.find((listener) => listener.api === api)?.url ?? '';
    return {
      ...running,
      embeddedChain,
      certApiUrl: urlOf('cert'),
      trackApiUrl: urlOf('track'),
      token: await mintLocalToken(secrets.jwtSecret),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
