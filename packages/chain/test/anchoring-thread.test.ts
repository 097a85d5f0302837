// The anchoring thread on PostgreSQL: the anchorers run in a worker thread with a pool of their
// own, and the requests' engine (built with `anchoring: false`) learns of settled records from
// the thread's messages.
import { openTestDatabase, type TestDatabase } from '@trustpoint/test-database';
import { DomainError } from '@trustpoint/domain';
import { parseEther } from 'ethers';
import workerThreads from 'node:worker_threads';
import { freePort, type LocalChain } from '@trustpoint/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// From the build, not from src: the thread loads `anchoring-thread-worker.js` next to
// `anchoring-thread.js`, and under vitest the src module's `__dirname` is `src/anchoring`, which
// holds only the TypeScript source ("Cannot find module .../src/anchoring/anchoring-thread-worker.js").
// The engine comes from the build too, so that its type and AnchorFailedError are the same ones.
import {
  AnchorEngine,
  AnchorFailedError,
  NetworkRegistry,
  startAnchoringThread,
  type AnchoringThread,
  type AnchoringThreadOptions,
  type AnchorLogger,
} from '../dist/index.js';
import type { AnchorReceipt, AnchorRequest } from '../src/anchoring/anchor-record.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { ChainControl, REGISTRAR, waitFor } from './support/interval-chain.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import {
  contractsOf,
  eventCountsByKey,
  onChainRecord,
  registerDirectly,
  startTestChain,
} from './support/test-chain.js';

const databaseUrl = process.env.DATABASE_URL;

/**
 * Far beyond every test's timeout: the requests' engine never looks at the database on its own
 * within a test, so only the thread's messages can wake its waiters.
 */
const NO_DATABASE_POLL_MS = 120_000;

function requestsEngine(db: TestDatabase, network: NetworkConfig): AnchorEngine {
  return new AnchorEngine(db.knex, new NetworkRegistry([network]), {
    anchoring: false,
    waitPollMs: NO_DATABASE_POLL_MS,
  });
}

async function enqueueEach(engine: AnchorEngine, db: TestDatabase, requests: AnchorRequest[]) {
  // One transaction per record, as the APIs do.
  return Promise.all(
    requests.map((request) => db.knex.transaction((trx) => engine.enqueue(trx, request))),
  );
}

async function statusesOf(db: TestDatabase, ids: number[]): Promise<string[]> {
  const rows = await db
    .knex('anchor_records')
    .whereIn('id', ids)
    .select<{ id: number; status: string }[]>('id', 'status');
  const statuses = new Map(rows.map((row) => [row.id, row.status]));
  // In the order given, which is the order the records were requested in.
  return ids.map((id) => statuses.get(id) ?? 'missing');
}

/**
 * Records the worker threads started while `run` runs, to stop one from outside as a crash would:
 * the anchoring thread is created through `worker_threads.Worker`, read at each start.
 */
async function withWorkerRecording<T>(
  run: (workers: workerThreads.Worker[]) => Promise<T>,
): Promise<T> {
  const workers: workerThreads.Worker[] = [];
  const Original = workerThreads.Worker;
  workerThreads.Worker = class RecordedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      workers.push(this);
    }
  };
  try {
    return await run(workers);
  } finally {
    workerThreads.Worker = Original;
  }
}

function errorLines(): { logger: AnchorLogger; lines: string[] } {
  const lines: string[] = [];
  const ignore = () => undefined;
  return {
    lines,
    logger: {
      info: ignore,
      warn: ignore,
      error: (_object, message) => {
        lines.push(message);
      },
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!databaseUrl)(
  'Anchoring thread (PostgreSQL only: skipped unless DATABASE_URL is set)',
  () => {
    let chain: LocalChain;
    let network: NetworkConfig;
    let db: TestDatabase;
    const threads: AnchoringThread[] = [];

    function startThread(
      engine: AnchorEngine,
      options: Partial<AnchoringThreadOptions> = {},
    ): Promise<AnchoringThread> {
      if (!databaseUrl || db.schema === undefined) throw new Error('a PostgreSQL test schema');
      return startAnchoringThread(engine, {
        databaseUrl,
        schema: db.schema,
        networks: [network],
        poolMax: 2,
        logLevel: 'silent',
        ...options,
      }).then((thread) => {
        threads.push(thread);
        return thread;
      });
    }

    beforeAll(async () => {
      ({ chain, network } = await startTestChain());
      db = await openTestDatabase('postgres');
    }, 60_000);

    afterEach(async () => {
      // A thread a failed test left running would anchor the next test's records.
      await Promise.all(threads.splice(0).map((thread) => thread.stop()));
    });

    afterAll(async () => {
      await db.close();
      await chain.stop();
    });

    it('when records are queued and the thread runs, then every waiter gets the receipt the chain holds, each record anchored once', async () => {
      const engine = requestsEngine(db, network);
      const trustPoints = trustPointRequests(60);
      const evidences = evidenceRequests(40);
      const requests = [...trustPoints, ...evidences];
      const ids = await enqueueEach(engine, db, requests);
      // Waiting before the thread starts: no receipt can be told before its waiter exists.
      const waiting = Promise.all(ids.map((id) => engine.waitForAnchor(id, NO_DATABASE_POLL_MS)));

      const thread = await startThread(engine);
      const receipts: AnchorReceipt[] = await waiting;
      await thread.stop();
      await engine.stop();

      expect(receipts.map((receipt) => receipt.recordId)).toEqual(ids);
      expect(await statusesOf(db, ids)).toEqual(ids.map(() => 'anchored'));
      const counts = await eventCountsByKey(network);
      for (const request of requests) expect(counts.get(request.recordKey)).toBe(1);
      const { provider } = contractsOf(network);
      try {
        for (const [i, receipt] of receipts.entries()) {
          const request = requests[i];
          if (!request) throw new Error('a request per receipt');
          const mined = await provider.getTransactionReceipt(receipt.transactionHash);
          expect(mined?.status).toBe(1);
          expect(mined?.blockNumber).toBe(receipt.blockNumber);
          expect(mined?.to?.toLowerCase()).toBe(receipt.smartContract.toLowerCase());
          if (request.kind === 'trustpoint') {
            expect(receipt.smartContract).toBe(network.trustPointRegistry);
          } else {
            expect(receipt.smartContract).toBe(network.evidenceRepository);
          }
          expect(await onChainRecord(network, request)).toEqual({
            hash: `0x${request.hash}`,
            type: 0,
          });
        }
      } finally {
        provider.destroy();
      }
    }, 90_000);

    it('when the requests engine queues a record and its transaction commits, then it wakes the idle anchorers of the thread, which otherwise would not look again within the test', async () => {
      // Arrange: after their first looks, the thread's anchorers move only when woken.
      const engine = requestsEngine(db, network);
      await startThread(engine, {
        timing: { pollIntervalMs: NO_DATABASE_POLL_MS, idlePollMaxMs: NO_DATABASE_POLL_MS },
      });
      await sleep(500);

      // Act
      const [id] = await enqueueEach(engine, db, evidenceRequests(1));
      if (id === undefined) throw new Error('one id');

      // Assert (read from the database: a wait on the record would wake the anchorers too)
      await expect
        .poll(async () => (await statusesOf(db, [id]))[0], { timeout: 20_000, interval: 100 })
        .toBe('anchored');
      await engine.stop();
    }, 60_000);

    it('when the registrar is empty, then the thread tells the requests engine its network is not ready and requests fail fast; funded again, the record is anchored', async () => {
      const engine = requestsEngine(db, network);
      const [queued, late] = evidenceRequests(2);
      if (!queued || !late) throw new Error('two requests');
      const [id] = await enqueueEach(engine, db, [queued]);
      if (id === undefined) throw new Error('one id');
      const waiting = engine
        .waitForAnchor(id, NO_DATABASE_POLL_MS)
        .catch((error: unknown) => error);
      const control = new ChainControl(network.rpcUrl, 0, network.rpcHeaders ?? {});
      await control.setBalance(REGISTRAR, 0n);
      try {
        const thread = await startThread(engine);
        await waitFor(
          () => engine.networkHealth(network.networkId).state === 'notReady',
          30_000,
          'not ready',
        );
        const failed = await waiting;
        const refused = await db.knex
          .transaction((trx) => engine.enqueue(trx, late))
          .catch((error: unknown) => error);

        expect(failed).toBeInstanceOf(DomainError);
        expect((failed as DomainError).code).toBe('networkUnavailable');
        expect((refused as DomainError).code).toBe('networkUnavailable');
        expect(await statusesOf(db, [id])).toEqual(['queued']);

        await control.setBalance(REGISTRAR, parseEther('10000'));
        const receipt = await engine.waitForAnchor(id, NO_DATABASE_POLL_MS);
        await thread.stop();
        await engine.stop();

        expect(receipt.recordId).toBe(id);
        expect(engine.networkHealth(network.networkId).state).toBe('ready');
      } finally {
        await control.setBalance(REGISTRAR, parseEther('10000'));
      }
    }, 90_000);

    it('when the chain refuses a record for good, then its waiter is rejected with AnchorFailedError through the thread and the others anchor', async () => {
      const engine = requestsEngine(db, network);
      const requests = evidenceRequests(3);
      const conflicting = requests[1];
      if (!conflicting) throw new Error('three requests');
      // Another hash already under the key: the registry refuses this record forever.
      await registerDirectly(network, conflicting, `0x${'ab'.repeat(32)}`);
      const ids = await enqueueEach(engine, db, requests);
      const waiting = Promise.allSettled(
        ids.map((id) => engine.waitForAnchor(id, NO_DATABASE_POLL_MS)),
      );

      const thread = await startThread(engine);
      const outcomes = await waiting;
      await thread.stop();
      await engine.stop();

      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      const failure = outcomes[1];
      const reason: unknown = failure?.status === 'rejected' ? failure.reason : undefined;
      expect(reason).toBeInstanceOf(AnchorFailedError);
      expect((reason as AnchorFailedError).recordId).toBe(ids[1]);
      expect(await statusesOf(db, ids)).toEqual(['anchored', 'failed', 'anchored']);
    }, 60_000);

    it('when the thread is stopped (twice), then it stops promptly and records queued afterwards wait until a new thread anchors them', async () => {
      const engine = requestsEngine(db, network);
      const [warmUp] = await enqueueEach(engine, db, evidenceRequests(1));
      if (warmUp === undefined) throw new Error('one id');
      const warmedUp = engine.waitForAnchor(warmUp, NO_DATABASE_POLL_MS);
      const first = await startThread(engine);
      await warmedUp;

      const stopping = Date.now();
      await first.stop();
      const stopTook = Date.now() - stopping;
      const stoppingAgain = Date.now();
      await first.stop();
      const secondStopTook = Date.now() - stoppingAgain;
      const requests = trustPointRequests(3);
      const ids = await enqueueEach(engine, db, requests);
      // Far longer than the anchorers' queue poll (25 ms) and batch wait (20 ms).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const statusesWhileStopped = await statusesOf(db, ids);
      const countsWhileStopped = await eventCountsByKey(network);
      const waiting = Promise.all(ids.map((id) => engine.waitForAnchor(id, NO_DATABASE_POLL_MS)));
      await startThread(engine);
      const receipts = await waiting;
      await engine.stop();

      expect(stopTook).toBeLessThan(5_000);
      expect(secondStopTook).toBeLessThan(1_000);
      expect(statusesWhileStopped).toEqual(['queued', 'queued', 'queued']);
      for (const request of requests)
        expect(countsWhileStopped.get(request.recordKey)).toBe(undefined);
      expect(receipts.map((receipt) => receipt.recordId)).toEqual(ids);
      expect(await statusesOf(db, ids)).toEqual(['anchored', 'anchored', 'anchored']);
      const counts = await eventCountsByKey(network);
      for (const request of requests) expect(counts.get(request.recordKey)).toBe(1);
    }, 60_000);
    it('when the running thread dies, then it is started again after the restart delay and anchors what was queued meanwhile', async () => {
      const engine = requestsEngine(db, network);
      const { logger, lines } = errorLines();
      // Long enough that the records enqueued below are read back before the thread returns, on
      // a loaded machine too.
      const restartDelayMs = 5_000;
      const outcome = await withWorkerRecording(async (workers) => {
        const [warmUp] = await enqueueEach(engine, db, evidenceRequests(1));
        if (warmUp === undefined) throw new Error('one id');
        const warmedUp = engine.waitForAnchor(warmUp, NO_DATABASE_POLL_MS);
        await startThread(engine, { logger, restartDelayMs });
        await warmedUp;
        const [first] = workers;
        if (!first) throw new Error('a thread started');

        const died = Date.now();
        await first.terminate();
        const ids = await enqueueEach(engine, db, evidenceRequests(3));
        const statusesWhileDead = await statusesOf(db, ids);
        const receipts = await Promise.all(
          ids.map((id) => engine.waitForAnchor(id, NO_DATABASE_POLL_MS)),
        );
        return { ids, statusesWhileDead, receipts, tookMs: Date.now() - died, workers };
      });
      await engine.stop();

      expect(outcome.statusesWhileDead).toEqual(['queued', 'queued', 'queued']);
      expect(outcome.receipts.map((receipt) => receipt.recordId)).toEqual(outcome.ids);
      expect(outcome.tookMs).toBeGreaterThanOrEqual(restartDelayMs);
      expect(outcome.workers).toHaveLength(2);
      expect(lines).toEqual(['anchoring thread ended; starting it again']);
    }, 60_000);

    it('when the thread cannot start, then starting rejects and no thread is started again', async () => {
      const engine = requestsEngine(db, network);
      const { logger, lines } = errorLines();
      const unreachable = new URL(databaseUrl ?? '');
      unreachable.port = String(await freePort());

      const outcome = await withWorkerRecording(async (workers) => {
        const error = await startThread(engine, {
          databaseUrl: unreachable.toString(),
          logger,
          restartDelayMs: 100,
        }).catch((reason: unknown) => reason);
        // Many restart delays: a thread started again would have been by now.
        await sleep(1_000);
        return { error, started: workers.length };
      });
      await engine.stop();

      expect(outcome.error).toBeInstanceOf(Error);
      expect(String(outcome.error)).toMatch(/ECONNREFUSED/);
      expect(outcome.started).toBe(1);
      expect(lines).toEqual([]);
    }, 30_000);
  },
);
