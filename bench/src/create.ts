// Certificate creation through the HTTP API, end to end: each request is authenticated, spends a
// credit, stores the certificate and queues its trustpoint in one transaction, and is answered
// (201) only once the trustpoint is mined. Many clients at once, so the engine batches.
// Run: npm run bench:create   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
// BENCH_PREFER=respond-async asks for answers at once (202, the trustpoint pending): the rate at
// which the service accepts creations, anchored behind them by the same engine.
// BENCH_IDEMPOTENCY_KEYS=1 sends an Idempotency-Key with every request.
import { startBenchService } from './support/bench-service.js';
import { clientThreads, describeClient, runHttpLoad } from './support/http-load.js';
import { millis } from './support/latency.js';
import { describeMachineSpeed, jsonRoundTripsPerSecond } from './support/machine-check.js';

const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? '6000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '500');
const USERS = Number(process.env.BENCH_USERS ?? '50');
const WARMUP = Number(process.env.BENCH_WARMUP ?? '500');
const THREADS = clientThreads();
const PREFER = process.env.BENCH_PREFER;
const ASYNC = PREFER === 'respond-async';
/** BENCH_IDEMPOTENCY_KEYS=1: every request sends an Idempotency-Key of its own. */
const KEYED = process.env.BENCH_IDEMPOTENCY_KEYS === '1';

async function main(): Promise<void> {
  const service = await startBenchService('create');
  try {
    const users = await service.users(USERS, CERTIFICATES + WARMUP);
    const tokens = users.map((user) => user.token);
    const url = `${service.running.certApiUrl}/certificates?type=content&networkId=31337`;
    // Request i as user i mod USERS: each user's credit row takes an even share.
    const targets = tokens.map((token) => ({ url, token }));
    const load = (count: number, clients: number) =>
      runHttpLoad({
        targets,
        body: 'content-certificate',
        count,
        clients,
        threads: THREADS,
        idempotencyKeys: KEYED,
        ...(PREFER === undefined ? {} : { headers: { prefer: PREFER } }),
      });
    await load(WARMUP, Math.min(CLIENTS, WARMUP));
    const speed = jsonRoundTripsPerSecond();
    const outcome = await load(CERTIFICATES, CLIENTS);
    const transactions = new Set(
      outcome.responses.flatMap((response) => response.transactionHash ?? []),
    );

    const created = outcome.statuses.get(ASYNC ? 202 : 201) ?? 0;
    console.log(
      `Certificate creation through the API${ASYNC ? ', answered at once (Prefer: respond-async, 202)' : ', answered once anchored (201)'}, ${service.backend} database, local chain; ${describeClient(CLIENTS, THREADS)}; ${String(USERS)} users${KEYED ? '; an Idempotency-Key on every request' : ''}\n`,
    );
    console.log(describeMachineSpeed(speed));
    console.log(`requests      ${String(CERTIFICATES)} (after ${String(WARMUP)} warm-up)`);
    console.log(
      `statuses      ${[...outcome.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`).join(', ')}`,
    );
    console.log(`duration      ${outcome.seconds.toFixed(2)} s`);
    console.log(
      `throughput    ${(created / outcome.seconds).toFixed(0)} certificates/s (goal >= ${ASYNC ? '6,000' : '3,000'} on PostgreSQL, >= 2,000 on PGlite)`,
    );
    console.log(
      `latency       p50 ${millis(outcome.latencies, 50)} ms, p99 ${millis(outcome.latencies, 99)} ms, max ${millis(outcome.latencies, 100)} ms`,
    );
    if (!ASYNC) {
      console.log(
        `batching      ${String(transactions.size)} transactions, ${(created / Math.max(1, transactions.size)).toFixed(1)} certificates per transaction`,
      );
    }
  } finally {
    await service.stop();
  }
}

void main();
