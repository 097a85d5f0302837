// Certificate creation through the HTTP API, end to end: each request is authenticated, spends a
// credit, stores the certificate and queues its trustpoint in one transaction, and is answered
// (201) only once the trustpoint is mined. Many clients at once, so the engine batches.
// Run: pnpm bench:create   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { randomUUID } from 'node:crypto';
import { startBenchService } from './support/bench-service.js';
import { latencyHistogram, millis } from './support/latency.js';

const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? '6000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '500');
const USERS = Number(process.env.BENCH_USERS ?? '50');
const WARMUP = Number(process.env.BENCH_WARMUP ?? '500');

interface Outcome {
  seconds: number;
  statuses: Map<number, number>;
  latencies: ReturnType<typeof latencyHistogram>;
  transactions: Set<string>;
}

async function run(
  url: string,
  tokens: string[],
  count: number,
  clients: number,
): Promise<Outcome> {
  const statuses = new Map<number, number>();
  const latencies = latencyHistogram();
  const transactions = new Set<string>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const token = tokens[client % tokens.length] ?? '';
      while (next < count) {
        next += 1;
        const sent = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'Invoice',
            description: 'Benchmark certificate',
            content: { invoice: randomUUID(), amount: 100 },
          }),
        });
        const body = (await response.json()) as {
          data?: { metadata?: { transactionHash?: string }[] };
        };
        latencies.recordValue(Math.round((performance.now() - sent) * 1_000));
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const transaction = body.data?.metadata?.[0]?.transactionHash;
        if (transaction !== undefined) transactions.add(transaction);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1_000, statuses, latencies, transactions };
}

async function main(): Promise<void> {
  const service = await startBenchService('create');
  try {
    const users = await service.users(USERS, CERTIFICATES + WARMUP);
    const tokens = users.map((user) => user.token);
    const url = `${service.running.certApiUrl}/certificates?type=content&networkId=31337`;
    await run(url, tokens, WARMUP, Math.min(CLIENTS, WARMUP));
    const outcome = await run(url, tokens, CERTIFICATES, CLIENTS);

    const created = outcome.statuses.get(201) ?? 0;
    console.log(
      `Certificate creation through the API, ${service.backend} database, local chain; ${String(CLIENTS)} concurrent clients over ${String(USERS)} users\n`,
    );
    console.log(`requests      ${String(CERTIFICATES)} (after ${String(WARMUP)} warm-up)`);
    console.log(
      `statuses      ${[...outcome.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`).join(', ')}`,
    );
    console.log(`duration      ${outcome.seconds.toFixed(2)} s`);
    console.log(
      `throughput    ${(created / outcome.seconds).toFixed(0)} certificates/s (goal >= 1,000)`,
    );
    console.log(
      `latency       p50 ${millis(outcome.latencies, 50)} ms, p99 ${millis(outcome.latencies, 99)} ms, max ${millis(outcome.latencies, 100)} ms`,
    );
    console.log(
      `batching      ${String(outcome.transactions.size)} transactions, ${(created / Math.max(1, outcome.transactions.size)).toFixed(1)} certificates per transaction`,
    );
  } finally {
    await service.stop();
  }
}

void main();
