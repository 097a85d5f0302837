// The deployment a soak runs against, all on loopback: a PostgreSQL cluster of its own, an
// interval-mined Hardhat node behind a JSON-RPC relay process, and the roles as an operator runs
// them (`trustpoint serve cert|track|anchor`), each a process that can be SIGKILLed and restarted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureDeployment,
  freePort,
  HARDHAT_DEV_KEY,
  startHardhatNode,
  useIntervalMining,
  type HardhatNode,
} from '@trustpoint/contracts';
import { createDatabase, type Database } from '@trustpoint/db';
import {
  ensureLocalUser,
  loadOrCreateSecrets,
  mintLocalToken,
} from '@trustpoint/launcher/local-identity';
import { JsonRpcProvider, Wallet } from 'ethers';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { startRpcRelay, type RpcRelay } from '../support/rpc-relay-process.js';
import {
  runServiceCommand,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service-process.js';

export const NETWORK_ID = '31337';

export interface SoakChainSettings {
  blockMs: number;
  confirmations: number;
}

/** One role process, restarted with the same settings (and port) after each kill. */
export class RoleSlot {
  #process: ServiceProcess | undefined;
  kills = 0;

  constructor(
    readonly name: string,
    readonly role: 'cert' | 'track' | 'anchor',
    private readonly env: NodeJS.ProcessEnv,
    /** The API's base URL (cert and track). */
    readonly url: string | undefined,
  ) {}

  async start(): Promise<void> {
    this.#process = await startServiceProcess(this.name, ['serve', this.role], this.env);
  }

  /** SIGKILL, then the same role again at once; how long it was away (until "is running"). */
  async killAndRestart(): Promise<{ downMs: number }> {
    const current = this.#process;
    const down = Date.now();
    if (current !== undefined) {
      current.child.kill('SIGKILL');
      await current.exited;
    }
    this.kills += 1;
    await this.start();
    return { downMs: Date.now() - down };
  }

  /** Unexpected exits: a role that died on its own (not killed by the soak). */
  exitedOnItsOwn(): boolean {
    const child = this.#process?.child;
    return child !== undefined && (child.exitCode !== null || child.signalCode !== null);
  }

  output(): string {
    return this.#process?.output() ?? '';
  }

  async stop(): Promise<number | null | undefined> {
    return this.#process?.stop();
  }
}

export interface SoakDeployment {
  postgres: PostgresCluster;
  database: Database;
  node: HardhatNode;
  relay: RpcRelay;
  registry: string;
  repository: string;
  env: NodeJS.ProcessEnv;
  certApis: RoleSlot[];
  trackApis: RoleSlot[];
  anchorers: RoleSlot[];
  adminToken: string;
  /** The admin API's base URL, on the first certificate API. */
  adminUrl: string;
  stop(): Promise<void>;
}

/** The stops of deployments started and not stopped yet. */
const live = new Set<() => Promise<void>>();

/**
 * Stops every deployment still running: for a test runner whose test ran out of time while the
 * soak went on (its own `finally` has not run), so that no PostgreSQL cluster, node or role
 * process outlives the run. A deployment stopped twice stops once.
 */
export async function stopSoakDeployments(): Promise<void> {
  await Promise.all([...live].map((stop) => stop()));
}

export async function startSoakDeployment(options: {
  chain: SoakChainSettings;
  apiProcesses: number;
  anchorProcesses: number;
  /** Each process's own log, to read when something goes wrong. */
  logLevel?: string;
}): Promise<SoakDeployment> {
  const cleanUps: (() => Promise<unknown>)[] = [];
  let stopping: Promise<void> | undefined;
  const cleanUp = () => {
    stopping ??= (async () => {
      live.delete(cleanUp);
      for (const step of cleanUps.reverse()) await step().catch(() => undefined);
    })();
    return stopping;
  };
  live.add(cleanUp);
  try {
    const postgres = await startPostgresCluster();
    cleanUps.push(() => postgres.destroy());
    const admin = await createDatabase({ url: postgres.url, migrate: false, poolMax: 1 });
    await admin.knex.raw('create database trustpoint_soak');
    await admin.close();
    const databaseUrl = postgres.databaseUrl('trustpoint_soak');

    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-soak-'));
    cleanUps.push(() => rm(dataDir, { recursive: true, force: true }));
    const node = await startHardhatNode();
    cleanUps.push(() => node.stop());
    const provider = new JsonRpcProvider(node.url, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    const { deployment } = await ensureDeployment(
      new Wallet(HARDHAT_DEV_KEY, provider),
      join(dataDir, 'deployments.json'),
    );
    provider.destroy();
    await useIntervalMining(node.url, options.chain.blockMs);
    const relay = await startRpcRelay(await freePort(), node.url);
    cleanUps.push(() => relay.stop());

    const networksFile = join(dataDir, 'networks.json');
    await writeFile(
      networksFile,
      JSON.stringify({
        networks: [
          {
            networkId: NETWORK_ID,
            name: 'Local chain behind a relay',
            rpcUrl: relay.url,
            chainId: 31337,
            trustPointRegistry: deployment.trustPointRegistry,
            evidenceRepository: deployment.evidenceRepository,
            confirmations: options.chain.confirmations,
            blockTimeMs: options.chain.blockMs,
            batch: { maxSize: 200, maxWaitMs: 200 },
          },
        ],
      }),
    );
    const env: NodeJS.ProcessEnv = {
      TRUSTPOINT_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      TRUSTPOINT_NETWORKS_FILE: networksFile,
      MIGRATE_AT_START: 'false',
      // Many clients as few users: per-user limits would refuse the load itself.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      // URL certificates of the soak's own loopback server.
      URL_FETCH_ALLOW: '127.0.0.1',
      LOG_LEVEL: options.logLevel ?? 'warn',
    };
    await runServiceCommand(['migrate'], env);
    // One secrets file for every process (tokens made here are accepted by all of them).
    const secrets = await loadOrCreateSecrets(join(dataDir, 'secrets.json'));
    const database = await createDatabase({ url: databaseUrl, migrate: false, poolMax: 2 });
    cleanUps.push(() => database.close());
    // The first administrator, as `serve all` makes its local one; everything else goes through
    // the admin API.
    await ensureLocalUser(database.knex, [NETWORK_ID]);
    const adminToken = await mintLocalToken(secrets.jwtSecret);

    const slots: RoleSlot[] = [];
    cleanUps.push(async () => {
      for (const slot of slots) await slot.stop();
    });
    const apiSlot = async (role: 'cert' | 'track', index: number) => {
      const port = await freePort();
      const portVariable = role === 'cert' ? 'CERT_API_PORT' : 'TRACK_API_PORT';
      const basePath = role === 'cert' ? '/cert/v2' : '/track/v2';
      return new RoleSlot(
        `serve ${role} #${String(index + 1)}`,
        role,
        { ...env, [portVariable]: String(port) },
        `http://127.0.0.1:${String(port)}${basePath}`,
      );
    };
    const certApis: RoleSlot[] = [];
    const trackApis: RoleSlot[] = [];
    const anchorers: RoleSlot[] = [];
    for (let i = 0; i < options.anchorProcesses; i += 1) {
      anchorers.push(
        new RoleSlot(
          `serve anchor #${String(i + 1)}`,
          'anchor',
          { ...env, HEALTH_PORT: String(await freePort()) },
          undefined,
        ),
      );
    }
    for (let i = 0; i < options.apiProcesses; i += 1) {
      certApis.push(await apiSlot('cert', i));
      trackApis.push(await apiSlot('track', i));
    }
    slots.push(...anchorers, ...certApis, ...trackApis);
    // One at a time: on two cores, six Node.js processes starting together take longer than in turn.
    for (const slot of slots) await slot.start();

    const firstCertApi = certApis[0]?.url ?? '';
    return {
      postgres,
      database,
      node,
      relay,
      registry: deployment.trustPointRegistry,
      repository: deployment.evidenceRepository,
      env,
      certApis,
      trackApis,
      anchorers,
      adminToken,
      adminUrl: firstCertApi.replace(/\/cert\/v2$/, '/admin/v1'),
      stop: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
