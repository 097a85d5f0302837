// The whole service as `npm start` runs it (local chain, database, anchoring, APIs), on free ports
// and a temporary data directory, for benchmarks that measure it through HTTP.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { createDatabase, createUser, savePlan } from '@trustpoint/db';
import { launch, type RunningTrustpoint } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import pino from 'pino';

export interface BenchService {
  running: RunningTrustpoint;
  /** `postgres` or `pglite`. */
  backend: string;
  /** New users on a plan with the local network, each with `credits`; their tokens. */
  users(count: number, credits: number): Promise<{ id: string; token: string }[]>;
  stop(): Promise<void>;
}

export interface BenchServiceOptions {
  /**
   * A networks file (`TRUSTPOINT_NETWORKS_FILE`) made for the embedded chain's URL, to anchor on
   * it with other settings than the defaults (confirmations, batches, block time).
   */
  networks?: (embeddedChainUrl: string) => unknown;
  /** Settings (environment variables of `docs/operations.md`) other than the defaults. */
  env?: Record<string, string>;
}

/**
 * With DATABASE_URL, a fresh database is created on that server (and dropped afterwards), so a
 * benchmark never measures or disturbs other data; otherwise the embedded PGlite.
 */
export async function startBenchService(
  label: string,
  options: BenchServiceOptions = {},
): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), `trustpoint-bench-${label}-`));
  const serverUrl = process.env.DATABASE_URL;
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  if (serverUrl) {
    const name = `trustpoint_bench_${label}_${String(Date.now())}`;
    const admin = await createDatabase({ url: serverUrl, migrate: false, poolMax: 1 });
    await admin.knex.raw('create database ??', [name]);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      await admin.knex.raw('drop database if exists ?? with (force)', [name]);
      await admin.close();
    };
  }
  const chainPort = await freePort();
  let networksFile: string | undefined;
  if (options.networks !== undefined) {
    networksFile = join(dataDir, 'networks.json');
    const networks = options.networks(`http://127.0.0.1:${String(chainPort)}`);
    await writeFile(networksFile, JSON.stringify(networks, null, 2));
  }
  const config = readLauncherConfig({
    TRUSTPOINT_DATA_DIR: dataDir,
    CHAIN_PORT: String(chainPort),
    CERT_API_PORT: String(await freePort()),
    TRACK_API_PORT: String(await freePort()),
    // The benchmark is the only client: per-user request limits would measure themselves.
    RATE_LIMIT_PER_MINUTE: '1000000000',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    ...(networksFile === undefined ? {} : { TRUSTPOINT_NETWORKS_FILE: networksFile }),
    ...options.env,
  });
  const running = await launch('all', config, pino({ level: process.env.LOG_LEVEL ?? 'warn' }));
  return {
    running,
    backend: running.database.backend,
    async users(count, credits) {
      const planId = `bench-plan-${label}`;
      await savePlan(running.database.knex, {
        id: planId,
        name: 'Benchmark plan',
        networkIds: running.networks.list().map((network) => network.networkId),
      });
      const users = [];
      for (let i = 0; i < count; i += 1) {
        const id = `bench-${label}-${String(i)}`;
        await createUser(running.database.knex, {
          id,
          displayName: id,
          planId,
          initialCredits: credits,
        });
        users.push({ id, token: await running.mintToken(id) });
      }
      return users;
    },
    async stop() {
      await running.stop();
      await dropDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
