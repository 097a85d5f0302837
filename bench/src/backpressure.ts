// Backpressure: asynchronous creations sent faster than the chain takes them, on the embedded
// hardhat node mining a block every 2 s whatever arrives (automine off) with a block gas limit
// small enough (3 M by default, one batch of 100 a block) that the service outruns it. Clients do not wait for anchoring:
// each sends its next creation (`Prefer: respond-async`) as soon as the last is answered, and
// 100 ms after a refusal, impatient rather than waiting out `Retry-After`. The network's queue
// limit is its default (block gas / 11,000 gas a record / block time x anchor timeout). Printed:
// the queue's depth over time against the limit, the share of 503s, the 202 answers' latency, the
// records anchored per second, and whether every 202 is a stored certificate.
// Run: npm run bench:backpressure   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { queueCapacity } from '@trustpoint/chain';
import { jsonRpcCall, useIntervalMining } from '@trustpoint/contracts';
import { countPendingAnchorRecords } from '@trustpoint/db';
import { startAsyncLoad } from './support/async-load.js';
import { startBenchService } from './support/bench-service.js';
import { clientThreads, describeClient } from './support/http-load.js';
import { latencyHistogram, millis } from './support/latency.js';
import { describeMachineSpeed, jsonRoundTripsPerSecond } from './support/machine-check.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '60');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '100');
const USERS = Number(process.env.BENCH_USERS ?? '20');
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? '2000');
/**
 * Small enough that the service outruns the chain even on a loaded 2-core machine: one batch of
 * 100 records (a gas limit of about 2 M) a block.
 */
const BLOCK_GAS_LIMIT = Number(process.env.BENCH_BLOCK_GAS_LIMIT ?? '3000000');
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? '100');
const BATCH_WAIT_MS = Number(process.env.BENCH_BATCH_WAIT_MS ?? '500');
/** The networks file's maxQueuedRecords; the default derived from the chain when unset. */
const MAX_QUEUED = process.env.BENCH_MAX_QUEUED_RECORDS;
const THREADS = clientThreads();
const SAMPLE_MS = 250;
const NETWORK_ID = '31337';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const network = {
    networkId: NETWORK_ID,
    name: 'Local chain mining like a congested network',
    chainId: 31337,
    confirmations: 1,
    blockTimeMs: BLOCK_MS,
    blockGasLimit: BLOCK_GAS_LIMIT,
    acknowledgement: 'async',
    batch: { maxSize: BATCH_SIZE, maxWaitMs: BATCH_WAIT_MS },
    ...(MAX_QUEUED === undefined ? {} : { maxQueuedRecords: Number(MAX_QUEUED) }),
  };
  const service = await startBenchService('backpressure', {
    networks: (rpcUrl) => ({ networks: [{ ...network, rpcUrl }] }),
  });
  try {
    const chainUrl = service.running.embeddedChain?.url;
    const writeHeaders = service.running.embeddedChain?.writeHeaders;
    if (chainUrl === undefined || writeHeaders === undefined) {
      throw new Error('the embedded chain did not start');
    }
    const knex = service.running.database.knex;
    await jsonRpcCall(
      chainUrl,
      'evm_setBlockGasLimit',
      [`0x${BLOCK_GAS_LIMIT.toString(16)}`],
      writeHeaders,
    );
    await useIntervalMining(chainUrl, BLOCK_MS, writeHeaders);
    const capacity =
      service.running.networks.require(NETWORK_ID).queue ??
      queueCapacity({ blockGasLimit: BLOCK_GAS_LIMIT, blockTimeMs: BLOCK_MS });
    const limit = capacity.maxQueuedRecords;
    const users = await service.users(USERS, Math.ceil((SECONDS * 5_000) / USERS));
    const url = `${service.running.certApiUrl}/certificates?type=content&networkId=${NETWORK_ID}`;

    const speed = jsonRoundTripsPerSecond();
    const anchoredBefore = await countAnchored(knex);
    const load = await startAsyncLoad({
      targets: users.map((user) => ({ url, token: user.token })),
      body: 'content-certificate',
      clients: CLIENTS,
      threads: THREADS,
      durationMs: SECONDS * 1_000,
      waitForAnchoring: false,
    });
    const started = Date.now();
    const depths: { at: number; depth: number }[] = [];
    while (Date.now() - started < SECONDS * 1_000) {
      // Counted past the limit, to see any overshoot.
      depths.push({
        at: Date.now() - started,
        depth: await countPendingAnchorRecords(knex, NETWORK_ID, 2 * limit + 1_000),
      });
      await sleep(SAMPLE_MS);
    }
    const anchoredAfter = await countAnchored(knex);
    const elapsed = (Date.now() - started) / 1_000;
    load.release();
    const requests = await load.done;
    const stored = await countCertificates(knex);

    const accepted = requests.filter((request) => request.status === 202);
    const busy = requests.filter((request) => request.status === 503);
    const acceptedLatency = latencyHistogram();
    for (const request of accepted) acceptedLatency.recordValue(Math.max(1, request.answerMicros));
    const busyLatency = latencyHistogram();
    for (const request of busy) busyLatency.recordValue(Math.max(1, request.answerMicros));
    const others = requests.length - accepted.length - busy.length;
    const maxDepth = Math.max(0, ...depths.map((sample) => sample.depth));
    const full = depths.findIndex((sample) => sample.depth >= 0.95 * limit);

    console.log(
      `Backpressure: asynchronous certificates sent faster than the chain takes them, ${service.backend} database: a block every ${(BLOCK_MS / 1_000).toFixed(1)} s (automine off) of ${grouped(BLOCK_GAS_LIMIT)} gas, 1 confirmation; batches of up to ${String(BATCH_SIZE)} (wait ${String(BATCH_WAIT_MS)} ms); ${describeClient(CLIENTS, THREADS)}, each sending its next creation once answered (100 ms after a 503); ${String(USERS)} users\n`,
    );
    console.log(describeMachineSpeed(speed));
    console.log(
      `limit         ${grouped(limit)} records pending (${MAX_QUEUED === undefined ? `default: ${grouped(BLOCK_GAS_LIMIT)} gas / 11,000 a record / ${(BLOCK_MS / 1_000).toFixed(1)} s = ${capacity.recordsPerSecond.toFixed(0)} records/s, x the 30 s anchor timeout` : 'BENCH_MAX_QUEUED_RECORDS'})`,
    );
    console.log('queue depth   seconds: records pending (queued or in a signed batch)');
    const everyMs = Math.max(SAMPLE_MS, Math.round((SECONDS * 1_000) / 20));
    let next = 0;
    for (const sample of depths) {
      if (sample.at < next) continue;
      next = sample.at + everyMs;
      const bar = '#'.repeat(Math.round((40 * sample.depth) / Math.max(1, limit)));
      console.log(
        `  ${(sample.at / 1_000).toFixed(1).padStart(5)} s  ${grouped(sample.depth).padStart(8)}  ${bar}`,
      );
    }
    console.log(
      `bounded       max ${grouped(maxDepth)} against the limit ${grouped(limit)} (${((100 * maxDepth) / Math.max(1, limit)).toFixed(1)}%), ${String(depths.length)} samples every ${String(SAMPLE_MS)} ms; ${full < 0 ? 'the limit was not reached' : `at the limit from ${((depths[full]?.at ?? 0) / 1_000).toFixed(1)} s`}`,
    );
    console.log(
      `answers       ${grouped(requests.length)} in ${elapsed.toFixed(0)} s: 202 ${grouped(accepted.length)} (${(accepted.length / elapsed).toFixed(0)}/s), 503 ${grouped(busy.length)} (${((100 * busy.length) / Math.max(1, requests.length)).toFixed(1)}%), other ${grouped(others)}`,
    );
    console.log(
      `latency       202 p50 ${millis(acceptedLatency, 50)} ms, p99 ${millis(acceptedLatency, 99)} ms; 503 p50 ${millis(busyLatency, 50)} ms, p99 ${millis(busyLatency, 99)} ms`,
    );
    console.log(
      `anchored      ${((anchoredAfter - anchoredBefore) / elapsed).toFixed(0)} records/s over the run (${grouped(anchoredAfter - anchoredBefore)} records), against ${capacity.recordsPerSecond.toFixed(0)}/s by the formula`,
    );
    console.log(
      `durable       ${grouped(accepted.length)} answered 202, ${grouped(stored)} certificates stored${stored === accepted.length ? '' : ' (MISMATCH)'}`,
    );
  } finally {
    await service.stop();
  }
}

async function countAnchored(knex: Parameters<typeof countPendingAnchorRecords>[0]) {
  const [row] = await knex('anchor_records')
    .where({ network_id: NETWORK_ID, status: 'anchored' })
    .count<{ n: string | number }[]>('* as n');
  return Number(row?.n ?? 0);
}

async function countCertificates(knex: Parameters<typeof countPendingAnchorRecords>[0]) {
  const [row] = await knex('certificates').count<{ n: string | number }[]>('* as n');
  return Number(row?.n ?? 0);
}

void main();
