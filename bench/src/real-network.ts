// Throughput on a chain that mines like a real network: the embedded hardhat node mining a block
// every 2 s whatever arrives (automine off), a network asking 2 confirmations. Many clients create
// content certificates through the API with `Prefer: respond-async` (202 pending) for a bounded
// time, each waiting for its certificate to be anchored before the next. Then the blocks are read:
// records and gas per block against the block gas limit, to tell whether block gas or the service
// bounds the throughput (the goal: block gas).
// Run: npm run bench:real-network   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { DEFAULT_ANCHORER_TIMING } from '@trustpoint/chain';
import {
  BATCH_RECORD_BYTES,
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  jsonRpcCall,
  MAX_BATCH_RECORDS,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  useIntervalMining,
} from '@trustpoint/contracts';
import type { Database } from '@trustpoint/db';
import { startAsyncLoad, type AsyncLoad, type SentRequest } from './support/async-load.js';
import { startBenchService } from './support/bench-service.js';
import { clientThreads, describeClient } from './support/http-load.js';
import { latencyHistogram, millis } from './support/latency.js';
import { describeMachineSpeed, jsonRoundTripsPerSecond } from './support/machine-check.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '60');
/**
 * Load before the measured seconds, as bench:create's warm-up: the service's code is compiled
 * and optimised by V8 in its first seconds under load (p99 of the first 5 s 80-140 ms against
 * 21-49 ms after), which a service that has been running has long done. Its answers are printed
 * apart, not counted.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? '5');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '3000');
/**
 * Open loop: creations offered at this rate (per second) on up to BENCH_CLIENTS connections,
 * whatever the answers, instead of clients each waiting for its record to be anchored; records
 * then arrive as independent clients' do, not in step with the blocks that release the waiting.
 */
const RATE = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
const USERS = Number(process.env.BENCH_USERS ?? '50');
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? '2000');
const CONFIRMATIONS = Number(process.env.BENCH_CONFIRMATIONS ?? '2');
// The engine's default on batch registries: one full data contract.
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? String(MAX_BATCH_RECORDS));
const BATCH_WAIT_MS = Number(process.env.BENCH_BATCH_WAIT_MS ?? '500');
/** Polygon PoS (2 s blocks, as here) and its Amoy test network: 30 million. Hardhat's own: 60. */
const BLOCK_GAS_LIMIT = Number(process.env.BENCH_BLOCK_GAS_LIMIT ?? '30000000');
/** How long records sent before the end may take to be anchored after it. */
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? '60');
const THREADS = clientThreads();
/** How often the runner looks at the database for anchored records and the queue. */
const OBSERVE_MS = 250;

interface Block {
  number: number;
  gasUsed: number;
  gasLimit: number;
  /** Each batch transaction's gas limit and record count. */
  batches: { gas: number; records: number }[];
}

interface QueueSample {
  /** Records waiting for a batch. */
  queued: number;
  /** Batches signed and not yet settled. */
  inFlight: number;
}

const registries = [
  TrustPointRegistry__factory.createInterface(),
  EvidenceRepository__factory.createInterface(),
  TrustPointBatchRegistry__factory.createInterface(),
  EvidenceBatchRepository__factory.createInterface(),
];

/**
 * Records in a batch transaction's call: the length of its array of records, or of a data batch's
 * bytes (48 a record).
 */
function recordsIn(input: string): number {
  for (const registry of registries) {
    const call = registry.parseTransaction({ data: input });
    if (!call) continue;
    const records = call.args[0] as unknown;
    return typeof records === 'string'
      ? (records.length - 2) / 2 / BATCH_RECORD_BYTES
      : (records as unknown[]).length;
  }
  return 0;
}

async function readBlock(url: string, number: number): Promise<Block> {
  const block = (await jsonRpcCall(url, 'eth_getBlockByNumber', [
    `0x${number.toString(16)}`,
    true,
  ])) as {
    gasUsed: string;
    gasLimit: string;
    transactions: { gas: string; input: string }[];
  };
  return {
    number,
    gasUsed: Number(block.gasUsed),
    gasLimit: Number(block.gasLimit),
    batches: block.transactions.map((tx) => ({
      gas: Number(tx.gas),
      records: recordsIn(tx.input),
    })),
  };
}

async function blockNumber(url: string): Promise<number> {
  return Number(await jsonRpcCall(url, 'eth_blockNumber'));
}

/**
 * Watches the database as the clients' source of "anchored": the certificates of each batch once
 * it is settled (its `updated_at`, written once the network's confirmations are in), and the
 * queue's state. It runs on the service's thread and pool, so each look reads only what is new,
 * through indexes: the batches settled since it last looked, then their certificates. A look that
 * scanned every trustpoint for its `anchored_at` grew with the run and held the service's thread
 * and database longer at every look (answers' p99 per 5 s rising from 45 to 87 ms over 30 s).
 */
class AnchoringObserver {
  readonly anchoredAt = new Map<string, number>();
  readonly samples: QueueSample[] = [];
  readonly #settled = new Set<number>();

  constructor(
    private readonly knex: Database['knex'],
    private readonly load: AsyncLoad,
  ) {}

  async look(sample: boolean): Promise<void> {
    // Batches are settled in any order: every anchored batch's id, a few hundred a run at most.
    const batches = await this.knex('anchor_batches')
      .where({ status: 'anchored' })
      .select<{ id: number | string; updated_at: Date | string }[]>('id', 'updated_at');
    const fresh = batches.filter((batch) => !this.#settled.has(Number(batch.id)));
    const ids: string[] = [];
    if (fresh.length > 0) {
      const settledAt = new Map(
        fresh.map((batch) => [Number(batch.id), new Date(batch.updated_at).getTime()]),
      );
      const rows = await this.knex('anchor_records as r')
        .join('trustpoints as t', 't.anchor_record_id', 'r.id')
        .join('certificates as c', 'c.id', 't.certificate_id')
        .whereIn('r.batch_id', [...settledAt.keys()])
        .select<{ cert_id: string; batch_id: number | string }[]>('c.cert_id', 'r.batch_id');
      for (const row of rows) {
        if (this.anchoredAt.has(row.cert_id)) continue;
        this.anchoredAt.set(row.cert_id, settledAt.get(Number(row.batch_id)) ?? Date.now());
        ids.push(row.cert_id);
      }
      for (const id of settledAt.keys()) this.#settled.add(id);
    }
    this.load.anchored(ids);
    if (!sample) return;
    const [queued, inFlight] = await Promise.all([
      this.knex('anchor_records')
        .where({ status: 'queued' })
        .count<{ n: number | string }[]>('* as n'),
      this.knex('anchor_batches')
        .where({ status: 'signed' })
        .count<{ n: number | string }[]>('* as n'),
    ]);
    this.samples.push({ queued: Number(queued[0]?.n ?? 0), inFlight: Number(inFlight[0]?.n ?? 0) });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const mean = (values: number[]) => (values.length === 0 ? 0 : sum(values) / values.length);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const percent = (part: number, whole: number) =>
  `${((100 * part) / Math.max(1, whole)).toFixed(0)}%`;
const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const service = await startBenchService('real-network', {
    networks: (rpcUrl) => ({
      networks: [
        {
          networkId: '31337',
          name: 'Local chain mining like a real network',
          rpcUrl,
          chainId: 31337,
          confirmations: CONFIRMATIONS,
          blockTimeMs: BLOCK_MS,
          batch: { maxSize: BATCH_SIZE, maxWaitMs: BATCH_WAIT_MS },
        },
      ],
    }),
  });
  try {
    const chainUrl = service.running.embeddedChain?.url;
    const writeHeaders = service.running.embeddedChain?.writeHeaders;
    if (chainUrl === undefined || writeHeaders === undefined) {
      throw new Error('the embedded chain did not start');
    }
    // Deployed with a block per transaction at start; from here on, blocks come on their own.
    await jsonRpcCall(
      chainUrl,
      'evm_setBlockGasLimit',
      [`0x${BLOCK_GAS_LIMIT.toString(16)}`],
      writeHeaders,
    );
    await useIntervalMining(chainUrl, BLOCK_MS, writeHeaders);
    // Enough credits for any rate the service could reach, so none runs out.
    const users = await service.users(USERS, Math.ceil((SECONDS * 5_000) / USERS) + CLIENTS);
    const url = `${service.running.certApiUrl}/certificates?type=content&networkId=31337`;
    const targets = users.map((user) => ({ url, token: user.token }));

    const speed = jsonRoundTripsPerSecond();
    // The service runs on this thread: how long its event loop was held while under load.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    const load = await startAsyncLoad({
      targets,
      body: 'content-certificate',
      clients: CLIENTS,
      threads: THREADS,
      durationMs: (WARMUP_SECONDS + SECONDS) * 1_000,
      ...(RATE === undefined ? {} : { ratePerSecond: RATE, waitForAnchoring: false }),
    });
    const observer = new AnchoringObserver(service.running.database.knex, load);
    let finished = false as boolean;
    const done = load.done.finally(() => {
      finished = true;
    });
    const warmupEnds = Date.now() + WARMUP_SECONDS * 1_000;
    while (Date.now() < warmupEnds) {
      await observer.look(false);
      await sleep(OBSERVE_MS);
    }
    const measuredFrom = Date.now();
    const startBlock = await blockNumber(chainUrl);
    const acceptedInWarmup = load.accepted();
    const unsentInWarmup = load.unsent();
    loopDelay.enable();
    const loadEnds = measuredFrom + SECONDS * 1_000;
    while (Date.now() < loadEnds) {
      await observer.look(true);
      await sleep(OBSERVE_MS);
    }
    loopDelay.disable();
    const endBlock = await blockNumber(chainUrl);
    const acceptedInLoad = load.accepted() - acceptedInWarmup;
    const unsent = load.unsent() - unsentInWarmup;
    const drainEnds = Date.now() + DRAIN_SECONDS * 1_000;
    while (!finished && Date.now() < drainEnds) {
      await observer.look(false);
      await sleep(OBSERVE_MS);
    }
    load.release();
    const sent: SentRequest[] = await done;
    const requests = sent.filter((request) => request.sentAt >= measuredFrom);
    const warmup = sent.filter((request) => request.sentAt < measuredFrom);
    // Open loop: the clients did not wait for their records; the drain does.
    const acceptedIds = sent.flatMap((request) => (request.id === undefined ? [] : [request.id]));
    await observer.look(false);
    while (Date.now() < drainEnds && acceptedIds.some((id) => !observer.anchoredAt.has(id))) {
      await sleep(OBSERVE_MS);
      await observer.look(false);
    }
    const lastBlock = await blockNumber(chainUrl);

    const blocks: Block[] = [];
    for (let number = startBlock + 1; number <= lastBlock; number += 1) {
      blocks.push(await readBlock(chainUrl, number));
    }
    report({
      backend: service.backend,
      speed,
      loopDelay,
      requests,
      warmup,
      acceptedInLoad,
      unsent,
      observer,
      blocks,
      endBlock,
    });
  } finally {
    await service.stop();
  }
}

function report(input: {
  backend: string;
  speed: number;
  loopDelay: IntervalHistogram;
  /** Sent after the warm-up: what the figures count. */
  requests: SentRequest[];
  /** Sent during the warm-up: shown apart. */
  warmup: SentRequest[];
  acceptedInLoad: number;
  /** Open loop: requests due while every connection was busy. */
  unsent: number;
  observer: AnchoringObserver;
  blocks: Block[];
  endBlock: number;
}): void {
  const { requests, observer, blocks, endBlock } = input;
  const accepted = requests.filter((request) => request.id !== undefined);
  const statuses = new Map<number, number>();
  const answers = latencyHistogram();
  const toAnchored = latencyHistogram();
  let unanchored = 0;
  for (const request of requests) {
    statuses.set(request.status, (statuses.get(request.status) ?? 0) + 1);
    answers.recordValue(Math.max(1, request.answerMicros));
    if (request.id === undefined) continue;
    const anchoredAt = observer.anchoredAt.get(request.id);
    if (anchoredAt === undefined) unanchored += 1;
    else toAnchored.recordValue(Math.max(1, (anchoredAt - request.sentAt) * 1_000));
  }

  // Steady blocks: after the first that holds records (the ramp, which the clients' first burst
  // only partly reached), to the last mined while clients sent.
  const first = blocks.findIndex((block) => block.batches.some((batch) => batch.records > 0));
  const steady =
    first < 0 ? [] : blocks.slice(first + 1).filter((block) => block.number <= endBlock);
  const recordsPerBlock = steady.map((block) => block.batches.reduce((n, b) => n + b.records, 0));
  const blockGasLimit = steady[0]?.gasLimit ?? blocks[0]?.gasLimit ?? 0;
  const largestBatchGas = Math.max(
    0,
    ...blocks.flatMap((block) => block.batches.map((b) => b.gas)),
  );
  // Full: the gas left could not take one more full batch. A miner includes a transaction while
  // its gas limit fits in what the block's earlier transactions left unused.
  const full = steady.filter((block) => block.gasLimit - block.gasUsed < largestBatchGas);
  const anchoredPerSecond = mean(recordsPerBlock) / (BLOCK_MS / 1_000);
  const gasPerRecord =
    sum(steady.map((block) => block.gasUsed)) / Math.max(1, sum(recordsPerBlock));
  // The gas limit batches were signed with (a data batch's depends on its buckets): the largest seen.
  const batchGasLimit = largestBatchGas;
  const batchGasUsed = gasPerRecord * BATCH_SIZE;
  // Batches a block takes: another while the gas left holds its gas limit.
  const batchesFit =
    blockGasLimit < batchGasLimit
      ? 0
      : Math.floor((blockGasLimit - batchGasLimit) / Math.max(1, batchGasUsed)) + 1;
  const gasCapacity = (batchesFit * BATCH_SIZE) / (BLOCK_MS / 1_000);
  const queued = input.observer.samples.map((sample) => sample.queued);
  const inFlight = input.observer.samples.map((sample) => sample.inFlight);
  const maxInFlight = DEFAULT_ANCHORER_TIMING.maxInFlight;

  console.log(
    `Asynchronous certificates on a chain that mines like a real one, ${input.backend} database: a block every ${(BLOCK_MS / 1_000).toFixed(1)} s (automine off), ${String(CONFIRMATIONS)} confirmations; batches of up to ${String(BATCH_SIZE)} records (wait ${String(BATCH_WAIT_MS)} ms), at most ${String(maxInFlight)} in flight; ${RATE === undefined ? `${describeClient(CLIENTS, THREADS)}, each waiting for its certificate to be anchored before the next` : `${String(RATE)} creations/s offered (open loop) on up to ${String(CLIENTS)} keep-alive connections in ${String(THREADS)} worker thread${THREADS === 1 ? '' : 's'}, the service alone on the main thread`}; ${String(USERS)} users\n`,
  );
  console.log(describeMachineSpeed(input.speed));
  console.log(
    `load          ${String(SECONDS)} s of requests after ${String(WARMUP_SECONDS)} s of warm-up (BENCH_WARMUP_SECONDS): ${[...statuses].map(([status, n]) => `${status === 0 ? 'no answer' : String(status)}: ${grouped(n)}`).join(', ')}; ${grouped(unanchored)} not anchored ${String(DRAIN_SECONDS)} s after the end`,
  );
  console.log(
    `acknowledged  ${(input.acceptedInLoad / SECONDS).toFixed(0)} records/s (202 pending); answer p50 ${millis(answers, 50)} ms, p99 ${millis(answers, 99)} ms`,
  );
  if (RATE !== undefined) {
    console.log(
      `offered       ${String(RATE)}/s: ${grouped(input.unsent)} due while all ${String(CLIENTS)} connections were busy, not sent (${percent(input.unsent, RATE * SECONDS)})`,
    );
  }
  console.log(
    `anchored      ${anchoredPerSecond.toFixed(0)} records/s sustained (records per block / block time over the ${String(steady.length)} blocks mined under load after the first that held records)`,
  );
  console.log(
    `to anchored   p50 ${(toAnchored.getValueAtPercentile(50) / 1e6).toFixed(2)} s, p99 ${(toAnchored.getValueAtPercentile(99) / 1e6).toFixed(2)} s, max ${(toAnchored.getValueAtPercentile(100) / 1e6).toFixed(2)} s from request to anchored (${String(accepted.length - unanchored)} records)`,
  );
  console.log(
    `blocks        records per block: median ${grouped(median(recordsPerBlock))}, min ${grouped(Math.min(...recordsPerBlock))}, max ${grouped(Math.max(...recordsPerBlock))}; batches per block ${mean(steady.map((b) => b.batches.length)).toFixed(1)}`,
  );
  console.log(
    `gas           block gas limit ${grouped(blockGasLimit)}: ${percent(mean(steady.map((b) => b.gasUsed)), blockGasLimit)} used on average; ${grouped(full.length)} of ${grouped(steady.length)} blocks full (no room left for another batch's gas limit); ${grouped(gasPerRecord)} gas per record`,
  );
  console.log(
    `capacity      a block takes ${String(batchesFit)} batches of ${String(BATCH_SIZE)} (gas limit ${grouped(batchGasLimit)}, ~${grouped(batchGasUsed)} used each): ${grouped(batchesFit * BATCH_SIZE)} records per block, ${gasCapacity.toFixed(0)} records/s`,
  );
  console.log(
    `queue         while under load: records waiting for a batch mean ${grouped(mean(queued))} (max ${grouped(Math.max(0, ...queued))}); batches signed and unsettled (those waiting for confirmations included) mean ${mean(inFlight).toFixed(1)}, max ${String(Math.max(0, ...inFlight))}; at most ${String(maxInFlight)} unmined`,
  );
  // When the slow answers came: each 5 s of the load, its answers' p99.
  const windows = new Map<number, ReturnType<typeof latencyHistogram>>();
  const loadStart = Math.min(...requests.map((request) => request.sentAt));
  for (const request of requests) {
    const window = Math.floor((request.sentAt - loadStart) / 5_000);
    const histogram = windows.get(window) ?? latencyHistogram();
    histogram.recordValue(Math.max(1, request.answerMicros));
    windows.set(window, histogram);
  }
  console.log(
    `answers by 5 s  p99 ${[...windows.entries()]
      .sort(([a], [b]) => a - b)
      .map(([window, histogram]) => `${String(window * 5)} s: ${millis(histogram, 99)} ms`)
      .join(', ')}`,
  );
  if (input.warmup.length > 0) {
    const warm = latencyHistogram();
    for (const request of input.warmup) warm.recordValue(Math.max(1, request.answerMicros));
    console.log(
      `warm-up       ${String(WARMUP_SECONDS)} s, not counted: ${grouped(input.warmup.length)} requests, answer p50 ${millis(warm, 50)} ms, p99 ${millis(warm, 99)} ms`,
    );
  }
  const delayMs = (percentile: number) => (input.loopDelay.percentile(percentile) / 1e6).toFixed(0);
  console.log(
    `event loop    the service's thread under load: delay p50 ${delayMs(50)} ms, p99 ${delayMs(99)} ms, max ${(input.loopDelay.max / 1e6).toFixed(0)} ms`,
  );
  console.log(`bound         ${verdict()}`);

  function verdict(): string {
    if (steady.length === 0) return 'unknown: no block held records';
    if (full.length >= 0.8 * steady.length) {
      return `block gas: ${percent(full.length, steady.length)} of the blocks under load had no room for another batch (the goal)`;
    }
    const shared =
      input.backend === 'pglite'
        ? ' (on the embedded PGlite, requests and anchoring share one connection and one thread)'
        : '';
    if (RATE !== undefined && input.unsent > 0) {
      return `the service: it did not answer the ${String(RATE)}/s offered (${grouped(input.unsent)} requests found every connection busy)${shared}`;
    }
    // Records wait up to the batch's maxWaitMs at any rate: anchored as fast as offered is the
    // offer's bound, whatever the queue looked like.
    if (RATE !== undefined && (mean(queued) < BATCH_SIZE / 2 || anchoredPerSecond >= 0.95 * RATE)) {
      return `the offered rate: the service answered the ${String(RATE)}/s offered and blocks had room; offer more (BENCH_RATE)`;
    }
    if (mean(queued) < BATCH_SIZE / 2) {
      return `the requests: blocks had room and few records waited for a batch; the API acknowledged ${(input.acceptedInLoad / SECONDS).toFixed(0)}/s with answers at p50 ${millis(answers, 50)} ms${shared}; with fast answers, more clients (BENCH_CLIENTS) would offer more`;
    }
    const withRoom = steady.filter((block) => !full.includes(block));
    if (median(withRoom.map((block) => block.batches.length)) >= maxInFlight) {
      return `the service: records waited while blocks had room, and blocks held ${String(maxInFlight)} batches, the most the anchorer keeps unmined (maxInFlight)`;
    }
    return `the service: records waited while blocks had room, with fewer than ${String(maxInFlight)} batches a block: the anchorer did not sign and send batches as fast as blocks took them${shared}`;
  }
}

void main();
