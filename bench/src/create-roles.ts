// Certificate creation through the API, two deployments measured in the same run on one
// PostgreSQL server: today's single process (`trustpoint serve all`), then two certificate API
// processes and one anchoring process (`trustpoint serve cert` x2, `trustpoint serve anchor`),
// the load spread over both APIs. Prints certificates/s, latency and each process's resident
// memory idle and under load.
// Run: DATABASE_URL=postgres://... npm run bench:create-roles
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { createDatabase, createUser, savePlan } from '@trustpoint/db';
import { startEmbeddedChain } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import { loadOrCreateSecrets, mintLocalToken } from '@trustpoint/launcher/local-identity';
import {
  clientThreads,
  describeClient,
  runHttpLoad,
  type LoadOutcome,
} from './support/http-load.js';
import { millis } from './support/latency.js';
import { describeMachineSpeed, jsonRoundTripsPerSecond } from './support/machine-check.js';
import {
  runServiceCommand,
  startServiceProcess,
  type ServiceProcess,
} from './support/service-process.js';

// 20,000 by default: with 6,000 (runs of 4-6 s) the three processes are still warming up and the
// comparison read 0.78 where 20,000 read 0.98-1.02 the same hour.
const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? '20000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '500');
const USERS = Number(process.env.BENCH_USERS ?? '50');
const WARMUP = Number(process.env.BENCH_WARMUP ?? '500');
const THREADS = clientThreads();

interface Deployment {
  label: string;
  databaseUrl: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  cleanUp: () => Promise<void>;
}

async function freshDeployment(label: string): Promise<Deployment> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('bench:create-roles needs DATABASE_URL (a PostgreSQL server)');
  const name = `trustpoint_bench_${label}_${String(Date.now())}`;
  const admin = await createDatabase({ url: serverUrl, migrate: false, poolMax: 1 });
  await admin.knex.raw('create database ??', [name]);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dataDir = await mkdtemp(join(tmpdir(), `trustpoint-bench-${label}-`));
  return {
    label,
    databaseUrl: url.toString(),
    dataDir,
    env: {
      TRUSTPOINT_DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      CHAIN_PORT: String(await freePort()),
      // The benchmark is the only client: per-user request limits would measure themselves.
      RATE_LIMIT_PER_MINUTE: '1000000000',
    },
    cleanUp: async () => {
      await admin.knex.raw('drop database if exists ?? with (force)', [name]);
      await admin.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function benchUsers(deployment: Deployment): Promise<string[]> {
  const database = await createDatabase({
    url: deployment.databaseUrl,
    migrate: false,
    poolMax: 1,
  });
  await savePlan(database.knex, { id: 'bench', name: 'Benchmark plan', networkIds: ['31337'] });
  const secrets = await loadOrCreateSecrets(join(deployment.dataDir, 'secrets.json'));
  const tokens = [];
  for (let i = 0; i < USERS; i += 1) {
    const id = `bench-${String(i)}`;
    await createUser(database.knex, {
      id,
      displayName: id,
      planId: 'bench',
      initialCredits: CERTIFICATES + WARMUP,
    });
    tokens.push(await mintLocalToken(secrets.jwtSecret, id));
  }
  await database.close();
  return tokens;
}

interface Measured {
  outcome: LoadOutcome;
  idle: Map<string, number>;
  loaded: Map<string, number>;
}

/** Warm-up, then the measured load through `apiUrls` in turn; memory idle and at its peak. */
async function measure(
  processes: ServiceProcess[],
  apiUrls: string[],
  tokens: string[],
): Promise<Measured> {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const idle = new Map<string, number>();
  for (const process of processes) idle.set(process.name, (await process.memory()).rssMiB);
  // Request i as user i mod USERS through API i mod APIs: every user on every API.
  const targets = tokens.flatMap((token) =>
    apiUrls.map((api) => ({ url: `${api}/certificates?type=content&networkId=31337`, token })),
  );
  const load = (count: number, clients: number) =>
    runHttpLoad({ targets, body: 'content-certificate', count, clients, threads: THREADS });
  await load(WARMUP, Math.min(CLIENTS, WARMUP));
  const outcome = await load(CERTIFICATES, CLIENTS);
  const loaded = new Map<string, number>();
  for (const process of processes) loaded.set(process.name, (await process.memory()).peakMiB);
  return { outcome, idle, loaded };
}

function report(title: string, measured: Measured): void {
  const { outcome } = measured;
  const created = outcome.statuses.get(201) ?? 0;
  console.log(`\n${title}`);
  console.log(
    `  statuses      ${[...outcome.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`).join(', ')}`,
  );
  console.log(
    `  throughput    ${(created / outcome.seconds).toFixed(0)} certificates/s over ${outcome.seconds.toFixed(2)} s`,
  );
  console.log(
    `  latency       p50 ${millis(outcome.latencies, 50)} ms, p99 ${millis(outcome.latencies, 99)} ms, max ${millis(outcome.latencies, 100)} ms`,
  );
  for (const [name, idle] of measured.idle) {
    console.log(
      `  memory        ${name.padEnd(14)} ${idle.toFixed(0)} MiB idle, ${(measured.loaded.get(name) ?? 0).toFixed(0)} MiB at its peak under load`,
    );
  }
}

async function singleProcess(): Promise<Measured> {
  const deployment = await freshDeployment('all');
  const certPort = await freePort();
  try {
    const all = await startServiceProcess('serve all', ['serve', 'all'], {
      ...deployment.env,
      CERT_API_PORT: String(certPort),
      TRACK_API_PORT: String(await freePort()),
    });
    try {
      const tokens = await benchUsers(deployment);
      return await measure([all], [`http://127.0.0.1:${String(certPort)}/cert/v2`], tokens);
    } finally {
      await all.stop();
    }
  } finally {
    await deployment.cleanUp();
  }
}

async function roles(): Promise<Measured> {
  const deployment = await freshDeployment('roles');
  const config = {
    ...readLauncherConfig({}),
    dataDir: deployment.dataDir,
    chainHost: '127.0.0.1',
    chainPort: Number(deployment.env.CHAIN_PORT),
  };
  // The chain runs in this process here (in `serve all` it runs inside the service's process).
  const chain = await startEmbeddedChain(config, join(deployment.dataDir, 'deployments.json'));
  const processes: ServiceProcess[] = [];
  try {
    await runServiceCommand(['migrate'], deployment.env);
    const settings = { ...deployment.env, MIGRATE_AT_START: 'false' };
    processes.push(
      await startServiceProcess('serve anchor', ['serve', 'anchor'], {
        ...settings,
        HEALTH_PORT: String(await freePort()),
      }),
    );
    const ports = [await freePort(), await freePort()];
    for (const [index, port] of ports.entries()) {
      processes.push(
        await startServiceProcess(`serve cert #${String(index + 1)}`, ['serve', 'cert'], {
          ...settings,
          CERT_API_PORT: String(port),
        }),
      );
    }
    const tokens = await benchUsers(deployment);
    return await measure(
      processes,
      ports.map((port) => `http://127.0.0.1:${String(port)}/cert/v2`),
      tokens,
    );
  } finally {
    for (const process of processes) await process.stop();
    await chain.stop();
    await deployment.cleanUp();
  }
}

async function main(): Promise<void> {
  const speed = jsonRoundTripsPerSecond();
  console.log(
    `Certificate creation through the API on PostgreSQL, local chain; ${describeClient(CLIENTS, THREADS)}; ${String(USERS)} users; ${String(CERTIFICATES)} requests after ${String(WARMUP)} warm-up`,
  );
  console.log(describeMachineSpeed(speed));
  console.log(
    `load average  ${loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')} (at start)`,
  );
  report(
    'One process: trustpoint serve all (chain, anchoring thread and both APIs inside)',
    await singleProcess(),
  );
  report(
    'Three processes: 2 x trustpoint serve cert + trustpoint serve anchor (chain in the benchmark process)',
    await roles(),
  );
  console.log(
    `\nload average  ${loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')} (at end)`,
  );
}

void main();
