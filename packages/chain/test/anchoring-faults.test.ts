// Crash tests: the chain node and the anchoring process die mid-batch and come back; every queued
// record still ends anchored exactly once, with the value the database holds.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startLocalChainProcess, type LocalChainProcess } from '@trustpoint/contracts';
import { createDatabase } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { AnchorRequest } from '../src/anchoring/anchor-record.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import { deploymentOf, eventCountsByKey, networkFor, onChainRecord } from './support/test-chain.js';

const WORKER = join(__dirname, 'support', 'anchor-process.mjs');

async function enqueueAll(knex: Knex, engine: AnchorEngine, requests: AnchorRequest[]) {
  for (let i = 0; i < requests.length; i += 100) {
    await knex.transaction(async (trx) => {
      for (const request of requests.slice(i, i + 100)) await engine.enqueue(trx, request);
    });
  }
}

async function anchoredCount(knex: Knex): Promise<number> {
  const row = await knex('anchor_records')
    .where({ status: 'anchored' })
    .count<{ count: number }[]>('* as count')
    .first();
  return row?.count ?? 0;
}

async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 50,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Batches signed and not yet settled: a kill now lands in the middle of a batch. */
async function batchesInFlight(knex: Knex): Promise<number> {
  const row = await knex('anchor_batches')
    .where({ status: 'signed' })
    .count<{ count: number }[]>('* as count')
    .first();
  return row?.count ?? 0;
}

/** Waits for `threshold` anchored records, then for the next moment a batch is in flight. */
async function waitForMidBatch(knex: Knex, threshold: number) {
  await waitFor(
    async () => (await anchoredCount(knex)) >= threshold,
    60_000,
    `${String(threshold)} anchored`,
  );
  await waitFor(async () => (await batchesInFlight(knex)) > 0, 30_000, 'a batch in flight', 1);
}

/** Every record anchored, one registration event per key, and the chain holds the queued hash. */
async function expectAnchoredExactlyOnce(
  knex: Knex,
  network: NetworkConfig,
  requests: AnchorRequest[],
) {
  const statuses = await knex('anchor_records')
    .select('status')
    .count<{ status: string; count: number }[]>('* as count')
    .groupBy('status');
  expect(statuses.map((s) => [s.status, s.count])).toEqual([['anchored', requests.length]]);
  const doubleBatched = await knex('anchor_records as r')
    .join('anchor_batches as b', 'b.id', 'r.batch_id')
    .whereNot('b.status', 'anchored')
    .count<{ count: number }[]>('* as count')
    .first();
  expect(doubleBatched?.count ?? 0).toBe(0);
  const counts = await eventCountsByKey(network);
  for (const request of requests) expect(counts.get(request.recordKey)).toBe(1);
  for (const request of requests) {
    expect((await onChainRecord(network, request))?.hash).toBe(`0x${request.hash}`);
  }
}

describe.each(testBackends())('Anchoring faults on %s', (backend) => {
  let chain: LocalChainProcess | undefined;
  let db: TestDatabase | undefined;
  let engine: AnchorEngine | undefined;

  afterEach(async () => {
    await engine?.stop();
    await db?.close();
    await chain?.kill();
  });

  it('when the chain node is killed mid-batch and restarted, then every record is anchored exactly once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-fault-'));
    const port = await freePort();
    chain = await startLocalChainProcess({ dataDir, port });
    const network = networkFor(
      chain.url,
      { ...(await deploymentOf(dataDir)), rpcHeaders: chain.writeHeaders },
      { maxSize: 40, maxWaitMs: 10 },
    );
    db = await openTestDatabase(backend);
    engine = new AnchorEngine(db.knex, new NetworkRegistry([network]), {
      timing: { retryBaseMs: 50, retryMaxMs: 500, rpcTimeoutMs: 1_000, rebroadcastAfterMs: 500 },
    });
    const requests = [...trustPointRequests(300), ...evidenceRequests(300)];
    await enqueueAll(db.knex, engine, requests);

    engine.start();
    const knex = db.knex;
    await waitForMidBatch(knex, 80);
    await chain.kill();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const anchoredWhileDown = await anchoredCount(knex);
    chain = await startLocalChainProcess({ dataDir, port });
    await waitFor(
      async () => (await anchoredCount(knex)) === requests.length,
      120_000,
      'all anchored',
    );

    expect(anchoredWhileDown).toBeLessThan(requests.length);
    await expectAnchoredExactlyOnce(knex, network, requests);
  }, 240_000);
});

describe.runIf(process.env.DATABASE_URL)('Anchoring processes on PostgreSQL', () => {
  const workers: ChildProcess[] = [];
  let chain: LocalChainProcess | undefined;
  let db: TestDatabase | undefined;

  afterEach(async () => {
    for (const worker of workers.splice(0)) worker.kill('SIGKILL');
    await db?.close();
    await chain?.kill();
  });

  async function setUp(batch: { maxSize: number; maxWaitMs: number }) {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-fault-'));
    chain = await startLocalChainProcess({ dataDir, port: await freePort() });
    const deployment = await deploymentOf(dataDir);
    const network = networkFor(chain.url, { ...deployment, rpcHeaders: chain.writeHeaders }, batch);
    const networksFile = join(dataDir, 'networks.json');
    await writeFile(
      networksFile,
      JSON.stringify({
        networks: [{ networkId: '31337', rpcUrl: chain.url, chainId: 31337, batch }],
      }),
    );
    db = await openTestDatabase('postgres');
    const startWorker = () => {
      const worker = spawn(process.execPath, [WORKER], {
        env: {
          ...process.env,
          TRUSTPOINT_DB_SCHEMA: db?.schema,
          TRUSTPOINT_NETWORKS_FILE: networksFile,
          TRUSTPOINT_DEPLOYMENTS_FILE: join(dataDir, 'deployments.json'),
          TRUSTPOINT_CHAIN_DIR: join(dataDir, 'chain'),
        },
        stdio: 'ignore',
      });
      workers.push(worker);
      return worker;
    };
    return { network, startWorker, knex: db.knex };
  }

  it('when the anchoring process is killed mid-batch and restarted, then every record is anchored exactly once', async () => {
    const { network, startWorker, knex } = await setUp({ maxSize: 40, maxWaitMs: 10 });
    const producer = new AnchorEngine(knex, new NetworkRegistry([network]), { anchoring: false });
    const requests = [...trustPointRequests(300), ...evidenceRequests(300)];
    await enqueueAll(knex, producer, requests);

    // Three kills at growing points of progress, each while a batch is signed but not settled.
    // On a busy machine the batch seen in flight may settle before the signal lands: then the
    // process is started and killed again, until a kill does land mid-batch.
    for (const threshold of [60, 200, 360]) {
      let landedMidBatch = false;
      for (let attempt = 0; attempt < 5 && !landedMidBatch; attempt += 1) {
        const worker = startWorker();
        await waitForMidBatch(knex, threshold);
        worker.kill('SIGKILL');
        await new Promise((resolve) => worker.once('exit', resolve));
        landedMidBatch = (await batchesInFlight(knex)) > 0;
      }
      expect(landedMidBatch).toBe(true);
    }
    startWorker();
    await waitFor(
      async () => (await anchoredCount(knex)) === requests.length,
      120_000,
      'all anchored',
    );

    await expectAnchoredExactlyOnce(knex, network, requests);
  }, 240_000);

  it('when several processes anchor from one database, then no record is sent twice', async () => {
    const { network, startWorker, knex } = await setUp({ maxSize: 25, maxWaitMs: 5 });
    const producer = new AnchorEngine(knex, new NetworkRegistry([network]), { anchoring: false });
    const requests = [...trustPointRequests(250), ...evidenceRequests(250)];

    startWorker();
    startWorker();
    startWorker();
    await enqueueAll(knex, producer, requests);
    await waitFor(
      async () => (await anchoredCount(knex)) === requests.length,
      120_000,
      'all anchored',
    );

    await expectAnchoredExactlyOnce(knex, network, requests);
    const signers = await knex('anchor_batches').distinct('signer');
    expect(signers).toHaveLength(1);
  }, 240_000);

  it('when the database drops the engine connections mid-batch, then every record is anchored exactly once', async () => {
    const { network, knex } = await setUp({ maxSize: 40, maxWaitMs: 10 });
    const url = process.env.DATABASE_URL ?? '';
    // The engine's pools carry an application name, so only their connections are cut.
    const anchoring = await createDatabase({
      url,
      schema: db?.schema,
      migrate: false,
      applicationName: 'trustpoint-fault',
    });
    const requests = [...trustPointRequests(300), ...evidenceRequests(300)];
    const engine = new AnchorEngine(anchoring.knex, new NetworkRegistry([network]), {
      timing: { retryBaseMs: 50, retryMaxMs: 500 },
    });
    await enqueueAll(knex, engine, requests);

    engine.start();
    let cut = 0;
    for (const threshold of [80, 250, 420]) {
      await waitForMidBatch(knex, threshold);
      const killed = await knex.raw<{ rows: unknown[] }>(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'trustpoint-fault'",
      );
      cut += killed.rows.length;
    }
    await waitFor(
      async () => (await anchoredCount(knex)) === requests.length,
      120_000,
      'all anchored',
    );
    await engine.stop();
    await anchoring.close();

    expect(cut).toBeGreaterThanOrEqual(3);
    await expectAnchoredExactlyOnce(knex, network, requests);
  }, 240_000);

  it('when a second database connection pool joins, then both engines share the work', async () => {
    const { network, knex } = await setUp({ maxSize: 20, maxWaitMs: 5 });
    const url = process.env.DATABASE_URL ?? '';
    const second = await createDatabase({ url, schema: db?.schema, migrate: false });
    const registry = new NetworkRegistry([network]);
    const engines = [new AnchorEngine(knex, registry), new AnchorEngine(second.knex, registry)];
    const requests = evidenceRequests(200);
    await enqueueAll(knex, engines[0] as AnchorEngine, requests);

    for (const e of engines) e.start();
    await waitFor(
      async () => (await anchoredCount(knex)) === requests.length,
      60_000,
      'all anchored',
    );
    for (const e of engines) await e.stop();
    await second.close();

    await expectAnchoredExactlyOnce(knex, network, requests);
  }, 120_000);
});
