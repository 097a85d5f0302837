// Anchoring on a chain that behaves like a real network: a block every second (automine off),
// 2 confirmations, and what real networks do on their own: fee spikes, reorgs, an empty registrar.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '@trustpoint/domain';
import { createDatabase } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { startJsonRpcRelay } from '@trustpoint/test-doubles/json-rpc-relay';
import type { LocalChain } from '@trustpoint/contracts';
import { HARDHAT_DEV_KEY } from '@trustpoint/contracts';
import { parseEther, parseUnits, Transaction, Wallet } from 'ethers';
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { AnchorRequest } from '../src/anchoring/anchor-record.js';
import { feesOfRaw, maxCostPerGas } from '../src/anchoring/fees.js';
import type { AnchorerTiming } from '../src/anchoring/network-anchorer.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import {
  capturingLogger,
  REGISTRAR,
  startIntervalChain,
  waitFor,
  type ChainControl,
} from './support/interval-chain.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import { eventCountsByKey, onChainRecord } from './support/test-chain.js';

const WORKER = join(__dirname, 'support', 'anchor-process.mjs');

const TIMING: Partial<AnchorerTiming> = {
  rebroadcastAfterMs: 1_000,
  balanceCheckMs: 1_000,
  notReadyCheckMs: 200,
  retryMaxMs: 1_000,
};

async function enqueueEach(engine: AnchorEngine, knex: Knex, requests: AnchorRequest[]) {
  // One transaction per record, as the APIs do.
  return Promise.all(
    requests.map((request) => knex.transaction((trx) => engine.enqueue(trx, request))),
  );
}

interface TransactionRow {
  id: number;
  batch_id: number;
  transaction_hash: string;
  raw_transaction: string;
  status: string;
}

async function transactionsOf(knex: Knex): Promise<TransactionRow[]> {
  return knex('anchor_transactions').orderBy('id').select<TransactionRow[]>('*');
}

/**
 * Every record anchored, by a batch settled from exactly one of its transactions (the others
 * dropped), one registration event per key, and the chain holds the queued hash.
 */
async function expectAnchoredExactlyOnce(
  knex: Knex,
  network: NetworkConfig,
  requests: AnchorRequest[],
) {
  const records = await knex('anchor_records as r')
    .join('anchor_batches as b', 'b.id', 'r.batch_id')
    .select<{ status: string; batch_status: string }[]>('r.status', 'b.status as batch_status');
  expect(records).toHaveLength(requests.length);
  expect(records.every((r) => r.status === 'anchored' && r.batch_status === 'anchored')).toBe(true);
  const batches = await knex('anchor_batches').select<
    { id: number; status: string; transaction_hash: string }[]
  >('id', 'status', 'transaction_hash');
  const transactions = await transactionsOf(knex);
  expect(transactions.filter((t) => t.status === 'signed')).toEqual([]);
  for (const batch of batches) {
    const mined = transactions.filter((t) => t.batch_id === batch.id && t.status === 'mined');
    if (batch.status === 'anchored') {
      expect(mined.map((t) => t.transaction_hash)).toEqual([batch.transaction_hash]);
    } else {
      expect(mined).toEqual([]);
    }
  }
  const counts = await eventCountsByKey(network);
  for (const request of requests) expect(counts.get(request.recordKey)).toBe(1);
  for (const request of requests) {
    expect((await onChainRecord(network, request))?.hash).toBe(`0x${request.hash}`);
  }
}

describe.each(testBackends())(
  'Anchoring on a chain that mines like a real one, on %s',
  (backend) => {
    let db: TestDatabase;
    let chain: LocalChain | undefined;
    let engine: AnchorEngine | undefined;
    let network: NetworkConfig;
    let control: ChainControl;

    beforeAll(async () => {
      db = await openTestDatabase(backend);
    }, 60_000);

    afterAll(async () => {
      await db.close();
    });

    afterEach(async () => {
      await engine?.stop();
      engine = undefined;
      await chain?.stop();
      chain = undefined;
      // Each test reads the whole outbox: start from an empty one.
      await db.knex('anchor_transactions').delete();
      await db.knex('anchor_records').delete();
      await db.knex('anchor_batches').delete();
      await db.knex('signer_nonces').delete();
    });

    async function setUp(
      options: {
        timing?: Partial<AnchorerTiming>;
        batch?: NetworkConfig['batch'];
        blockMs?: number;
      } = {},
    ) {
      ({ chain, network, control } = await startIntervalChain(options.blockMs));
      if (options.batch) network = { ...network, batch: options.batch };
      const { logger, lines } = capturingLogger();
      engine = new AnchorEngine(db.knex, new NetworkRegistry([network]), {
        logger,
        timing: { ...TIMING, ...options.timing },
      });
      return { engine, lines };
    }

    /** Waits until `count` batches are signed and each of their transactions is in the node's pool. */
    async function batchesInPool(count: number): Promise<TransactionRow[]> {
      let rows: TransactionRow[] = [];
      await waitFor(
        async () => {
          rows = await transactionsOf(db.knex);
          if (rows.length < count) return false;
          for (const row of rows) if (!(await control.knows(row.transaction_hash))) return false;
          return true;
        },
        30_000,
        `${String(count)} batches in the pool`,
      );
      return rows;
    }

    it('when batches wait for a block, then their receipts are asked about once a block and once a second, not at every look, and they settle when blocks come', async () => {
      // Arrange: the engine reaches the node through a relay that counts its calls.
      ({ chain, network, control } = await startIntervalChain());
      const counts = new Map<string, number>();
      const relay = await startJsonRpcRelay(network.rpcUrl, (call, reply) => {
        counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
        return reply;
      });
      try {
        const counted = new AnchorEngine(
          db.knex,
          new NetworkRegistry([{ ...network, rpcUrl: relay.url }]),
          { logger: capturingLogger().logger, timing: TIMING },
        );
        engine = counted;
        await control.pauseMining();
        const ids = await enqueueEach(counted, db.knex, trustPointRequests(10));
        counted.start();
        await batchesInPool(1);

        // Act: 3 s without a block, the settler looking every 25 ms while a batch waits.
        const before = counts.get('eth_getTransactionReceipt') ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const asked = (counts.get('eth_getTransactionReceipt') ?? 0) - before;
        await control.resumeMining();
        const receipts = await Promise.all(ids.map((id) => counted.waitForAnchor(id, 30_000)));

        // Assert: a look every second at most (it was 120 looks, each asking the receipt).
        expect(asked).toBeLessThanOrEqual(6);
        expect(counts.get('eth_blockNumber') ?? 0).toBeGreaterThan(asked);
        expect(new Set(receipts.map((receipt) => receipt.transactionHash)).size).toBe(1);
      } finally {
        await engine?.stop();
        engine = undefined;
        await relay.close();
      }
    }, 90_000);

    it('when the base fee spikes tenfold while batches wait, then they are replaced at the same nonce and settle, every record once', async () => {
      const { engine, lines } = await setUp();
      const requests = [...trustPointRequests(30), ...evidenceRequests(20)];
      await control.pauseMining();
      const ids = await enqueueEach(engine, db.knex, requests);
      engine.start();
      const first = await batchesInPool(2);
      const highest = first
        .map((row) => maxCostPerGas(feesOfRaw(row.raw_transaction)))
        .reduce((a, b) => (a > b ? a : b));

      // Ten times what either batch may pay: neither can be mined in the blocks that follow.
      await control.setNextBlockBaseFee(highest * 10n);
      await control.resumeMining();
      const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 90_000)));

      const transactions = await transactionsOf(db.knex);
      const batches = await db
        .knex('anchor_batches')
        .select<{ id: number; nonce: number; transaction_hash: string }[]>(
          'id',
          'nonce',
          'transaction_hash',
        );
      expect(batches).toHaveLength(2);
      for (const batch of batches) {
        const own = transactions.filter((t) => t.batch_id === batch.id);
        expect(own.length).toBeGreaterThanOrEqual(2);
        // Settled from a replacement: same nonce, higher fees than the spike asked.
        expect(own[0]?.status).toBe('dropped');
        const mined = own.find((t) => t.status === 'mined');
        expect(mined?.transaction_hash).toBe(batch.transaction_hash);
        const minedTransaction = Transaction.from(mined?.raw_transaction ?? '');
        expect(minedTransaction.nonce).toBe(batch.nonce);
        expect(maxCostPerGas(feesOfRaw(mined?.raw_transaction ?? ''))).toBeGreaterThan(
          highest * 10n,
        );
      }
      const minedHashes = new Set(batches.map((b) => b.transaction_hash));
      expect(receipts.every((r) => minedHashes.has(r.transactionHash))).toBe(true);
      expect(lines.filter((l) => l.message.includes('replaced with higher fees')).length).toBe(
        transactions.length - 2,
      );
      await expectAnchoredExactlyOnce(db.knex, network, requests);
    }, 180_000);

    it('when a batch is mined and waits for its confirmations, then it no longer holds a place in flight: the next batch goes into the next block', async () => {
      // Arrange: one batch in flight at most, two batches' worth of records; 2 s blocks, so a
      // busy machine has time to send the second batch before the next block.
      const { engine } = await setUp({
        timing: { maxInFlight: 1 },
        batch: { maxSize: 5, maxWaitMs: 20 },
        blockMs: 2_000,
      });
      const requests = trustPointRequests(10);
      const ids = await enqueueEach(engine, db.knex, requests);
      // Act
      engine.start();
      const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 60_000)));
      // Assert: mined in consecutive blocks, not one batch per 2 blocks (its 2 confirmations).
      const blocks = [...new Set(receipts.map((receipt) => receipt.blockNumber))].sort(
        (a, b) => a - b,
      );
      expect(blocks).toHaveLength(2);
      expect((blocks[1] ?? 0) - (blocks[0] ?? 0)).toBe(1);
      await expectAnchoredExactlyOnce(db.knex, network, requests);
    }, 120_000);

    it('when a mined batch disappears in a reorg before its confirmations, then the same bytes are sent again and its records end anchored', async () => {
      const { engine, lines } = await setUp();
      const requests = evidenceRequests(10);
      await control.pauseMining();
      const beforeBatch = await control.snapshot();
      const ids = await enqueueEach(engine, db.knex, requests);
      engine.start();
      const [sent] = await batchesInPool(1);
      if (!sent) throw new Error('one batch');

      await control.mineBlock();
      await waitFor(
        () => lines.some((l) => l.message.startsWith('batch mined; waiting')),
        30_000,
        'the engine to see the batch mined',
      );
      await control.revert(beforeBatch);
      expect(await control.knows(sent.transaction_hash)).toBe(false);
      await control.resumeMining();
      const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 90_000)));

      expect(lines.filter((l) => l.message.includes('(reorg)'))).toHaveLength(1);
      expect(receipts.every((r) => r.transactionHash === sent.transaction_hash)).toBe(true);
      expect(await control.receiptBlock(sent.transaction_hash)).toBeDefined();
      expect((await transactionsOf(db.knex)).map((t) => t.status)).toEqual(['mined']);
      await expectAnchoredExactlyOnce(db.knex, network, requests);
    }, 180_000);

    it('when a reorg drops a batch and another transaction takes its nonce, then its records are signed again and end anchored once', async () => {
      const { engine, lines } = await setUp();
      const requests = trustPointRequests(10);
      await control.pauseMining();
      const beforeBatch = await control.snapshot();
      const ids = await enqueueEach(engine, db.knex, requests);
      engine.start();
      const [sent] = await batchesInPool(1);
      if (!sent) throw new Error('one batch');
      await control.mineBlock();
      await waitFor(
        () => lines.some((l) => l.message.startsWith('batch mined; waiting')),
        30_000,
        'the engine to see the batch mined',
      );

      await control.revert(beforeBatch);
      // On the new branch the registrar's nonce goes to another transaction, paying far more.
      const wallet = new Wallet(HARDHAT_DEV_KEY);
      const other = await wallet.signTransaction(
        Transaction.from({
          chainId: network.chainId,
          nonce: Transaction.from(sent.raw_transaction).nonce,
          to: REGISTRAR,
          gasLimit: 21_000n,
          type: 2,
          maxFeePerGas: parseUnits('500', 'gwei'),
          maxPriorityFeePerGas: parseUnits('100', 'gwei'),
        }),
      );
      await control.call('eth_sendRawTransaction', [other]);
      await control.resumeMining();
      const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 90_000)));

      expect(await control.receiptBlock(sent.transaction_hash)).toBeUndefined();
      const batches = await db.knex('anchor_batches').orderBy('id').select('status', 'error');
      expect(batches[0]).toEqual({ status: 'failed', error: 'nonce used by another transaction' });
      expect(receipts.every((r) => r.transactionHash !== sent.transaction_hash)).toBe(true);
      await expectAnchoredExactlyOnce(db.knex, network, requests);
    }, 180_000);

    it.each([
      [
        "a registry address holds no contract (a typo, or another chain's deployment)",
        (given: NetworkConfig) => ({ ...given, trustPointRegistry: `0x${'11'.repeat(20)}` }),
        /^trustPointRegistry 0x1{40} has no contract code on chain 31337/,
      ],
      [
        'the registrar key holds no REGISTRAR_ROLE on the registries',
        (given: NetworkConfig) => ({ ...given, signerKey: Wallet.createRandom().privateKey }),
        /does not hold REGISTRAR_ROLE on trustPointRegistry .*: grant it/,
      ],
    ])(
      'when %s, then the network is not ready saying so, nothing is sent and queued records wait',
      async (_case, change, reason) => {
        // Arrange
        ({ chain, network, control } = await startIntervalChain());
        const { logger, lines } = capturingLogger();
        const configured = change(network);
        engine = new AnchorEngine(db.knex, new NetworkRegistry([configured]), {
          logger,
          timing: TIMING,
        });
        const started = engine;
        await enqueueEach(started, db.knex, trustPointRequests(2));

        // Act
        started.start();
        await waitFor(
          () => started.networkHealth(network.networkId).state === 'notReady',
          30_000,
          'not ready',
        );
        // Several looks while it stays so.
        await new Promise((resolve) => setTimeout(resolve, 1_500));

        // Assert
        expect(started.networkHealth(network.networkId).reason).toMatch(reason);
        expect(await transactionsOf(db.knex)).toEqual([]);
        expect(await db.knex('anchor_records').distinct('status')).toEqual([{ status: 'queued' }]);
        // Told once, not at every look.
        const told = lines.filter(
          (line) =>
            line.level === 'error' &&
            line.message.includes('registrar cannot write to its registries'),
        );
        expect(told).toHaveLength(1);
      },
      120_000,
    );

    it('when the registrar is empty, then the network is not ready, requests fail fast and queued records wait; funded again, the queue drains', async () => {
      const { engine, lines } = await setUp();
      const queued = evidenceRequests(8);
      const ids = await enqueueEach(engine, db.knex, queued);
      await control.setBalance(REGISTRAR, 0n);

      engine.start();
      await waitFor(
        () => engine.networkHealth(network.networkId).state === 'notReady',
        30_000,
        'not ready',
      );
      const waitStarted = Date.now();
      const waited = await engine
        .waitForAnchor(ids[0] ?? -1, 30_000)
        .catch((error: unknown) => error);
      const waitedMs = Date.now() - waitStarted;
      const [late] = evidenceRequests(1);
      if (!late) throw new Error('one request');
      const refused = await db.knex
        .transaction((trx) => engine.enqueue(trx, late))
        .catch((error: unknown) => error);
      // Several looks at the balance while it stays empty.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const health = engine.networkHealth(network.networkId);
      const statuses = await db.knex('anchor_records').distinct('status');

      expect(waited).toBeInstanceOf(DomainError);
      expect((waited as DomainError).code).toBe('networkUnavailable');
      // Refused at once, not at the end of its 30 s wait (a bound in ms, loose: the machine may be busy).
      expect(waitedMs).toBeLessThan(15_000);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('networkUnavailable');
      expect(health).toMatchObject({ state: 'notReady', balanceWei: '0' });
      expect(BigInt(health.requiredWei ?? '0')).toBeGreaterThan(0n);
      expect(statuses).toEqual([{ status: 'queued' }]);
      expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
      expect(lines.find((l) => l.level === 'error')?.message).toMatch(/^network not ready/);

      await control.setBalance(REGISTRAR, parseEther('100'));
      // Until the anchorer sees the funds, waiting on a queued record still fails fast.
      await waitFor(
        () => engine.networkHealth(network.networkId).state === 'ready',
        30_000,
        'ready again',
      );
      const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 90_000)));

      expect(receipts).toHaveLength(queued.length);
      expect(engine.networkHealth(network.networkId).state).toBe('ready');
      expect(lines.filter((l) => l.message.startsWith('network ready again'))).toHaveLength(1);
      expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
      await expectAnchoredExactlyOnce(db.knex, network, queued);
    }, 180_000);
  },
);

/**
 * The anchoring process (`trustpoint-anchorer`) is SIGKILLed right after it stored a replacement.
 * On PGlite the database belongs to one process at a time: the test queues records, hands the
 * data directory over, and looks at it only while no anchoring process runs; it sees the process
 * at work through its log lines and the node's pool. PostgreSQL runs the same steps.
 */
describe.each(testBackends())('An anchoring process killed mid-replacement, on %s', (backend) => {
  const workers: ChildProcess[] = [];
  let chain: LocalChain | undefined;
  let owner: TestDatabase | undefined;

  afterEach(async () => {
    for (const worker of workers.splice(0)) worker.kill('SIGKILL');
    await owner?.close();
    owner = undefined;
    await chain?.stop();
    chain = undefined;
  });

  async function count(knex: Knex, table: string, where: Record<string, string> = {}) {
    const row = await knex(table).where(where).count<{ count: number }[]>('* as count').first();
    return row?.count ?? 0;
  }

  it('when the anchoring process is killed right after storing a replacement, then after restarts every record is anchored exactly once', async () => {
    const started = await startIntervalChain();
    chain = started.chain;
    const { network, control } = started;
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-replacement-crash-'));
    const pgliteDir = join(dataDir, 'pgdata');
    const networksFile = join(dataDir, 'networks.json');
    await writeFile(
      networksFile,
      JSON.stringify({
        networks: [
          {
            networkId: network.networkId,
            rpcUrl: network.rpcUrl,
            chainId: network.chainId,
            trustPointRegistry: network.trustPointRegistry,
            evidenceRepository: network.evidenceRepository,
            confirmations: 2,
            replaceAfterBlocks: 2,
            batch: { maxSize: 40, maxWaitMs: 10 },
          },
        ],
      }),
    );
    if (backend === 'postgres') owner = await openTestDatabase('postgres');
    /** Runs `look` on the database; on PGlite only while no anchoring process has it open. */
    const withDatabase = async <T>(look: (knex: Knex) => Promise<T>): Promise<T> => {
      if (owner) return look(owner.knex);
      const database = await createDatabase({ dataDir: pgliteDir });
      try {
        return await look(database.knex);
      } finally {
        await database.close();
      }
    };
    const startWorker = () => {
      const worker = spawn(process.execPath, [WORKER], {
        env: {
          ...process.env,
          ...(owner
            ? { TRUSTPOINT_DB_SCHEMA: owner.schema }
            : { DATABASE_URL: '', TRUSTPOINT_PGLITE_DIR: pgliteDir }),
          TRUSTPOINT_NETWORKS_FILE: networksFile,
          TRUSTPOINT_DEPLOYMENTS_FILE: join(dataDir, 'deployments.json'),
          // The chain's write key: the process anchors through its relay.
          TRUSTPOINT_CHAIN_DIR: started.dataDir,
        },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      workers.push(worker);
      const messages: string[] = [];
      worker.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) {
          const match = /"msg":"([^"]*)"/.exec(line);
          if (match?.[1] !== undefined) messages.push(match[1]);
        }
      });
      const exited = new Promise<void>((resolve) => {
        worker.once('exit', () => {
          resolve();
        });
      });
      return { worker, messages, exited };
    };
    const requests = [...trustPointRequests(100), ...evidenceRequests(50)];
    await withDatabase(async (knex) => {
      const producer = new AnchorEngine(knex, new NetworkRegistry([network]), {
        anchoring: false,
      });
      await enqueueEach(producer, knex, requests);
    });
    await control.pauseMining();

    // Four batches (the most in flight) signed and in the pool, then a spike none of them can pay.
    const first = startWorker();
    let pending: { maxFeePerGas: string }[] = [];
    await waitFor(
      async () => {
        pending =
          (
            await control.call<{ transactions: { maxFeePerGas: string }[] } | null>(
              'eth_getBlockByNumber',
              ['pending', true],
            )
          )?.transactions ?? [];
        return pending.length >= 4;
      },
      60_000,
      'four batches in the pool',
      50,
    );
    const highest = pending
      .map((transaction) => BigInt(transaction.maxFeePerGas))
      .reduce((a, b) => (a > b ? a : b));
    await control.setNextBlockBaseFee(highest * 10n);
    await control.resumeMining();
    // Killed as soon as the first replacement is stored: it may or may not have been sent.
    await waitFor(
      () => first.messages.some((message) => message.includes('replaced with higher fees')),
      60_000,
      'a replacement stored',
      2,
    );
    first.worker.kill('SIGKILL');
    await first.exited;
    const atKill = await withDatabase(async (knex) => ({
      replacements:
        (await count(knex, 'anchor_transactions')) - (await count(knex, 'anchor_batches')),
      anchored: await count(knex, 'anchor_records', { status: 'anchored' }),
    }));

    // Started again (and, to look at the database, stopped) until every record is anchored.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const anchored = await withDatabase((knex) =>
        count(knex, 'anchor_records', { status: 'anchored' }),
      );
      if (anchored === requests.length) break;
      if (Date.now() > deadline) throw new Error(`only ${String(anchored)} anchored in time`);
      const again = startWorker();
      // Until the chain holds every record (read from the chain: on PGlite the database is the
      // worker's while it runs), then long enough for two confirmations and the settling.
      await waitFor(
        async () => {
          const counts = await eventCountsByKey(network);
          return requests.every((request) => counts.has(request.recordKey.toLowerCase()));
        },
        60_000,
        'every record on chain',
        500,
      ).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      again.worker.kill('SIGTERM');
      await again.exited;
    }

    expect(atKill.replacements).toBeGreaterThanOrEqual(1);
    expect(atKill.anchored).toBeLessThan(requests.length);
    await withDatabase(async (knex) => {
      // A replaced batch settles from one of its transactions; the other is dropped.
      const transactions = await transactionsOf(knex);
      expect(transactions.filter((t) => t.status === 'dropped').length).toBeGreaterThanOrEqual(1);
      await expectAnchoredExactlyOnce(knex, network, requests);
    });
  }, 420_000);
});
