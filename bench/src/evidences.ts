// Evidences added through the tracking API, end to end: each request is authenticated, spends a
// credit, takes the next free second of its assetHash, stores the evidence and queues it in one
// transaction, and is answered (201) only once it is mined. Many clients at once, so the engine
// batches. Two shapes: every request on one hot asset (they queue on its clock row), and
// requests spread over many assets.
// Run: pnpm bench:evidences   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { startBenchService, type BenchService } from './support/bench-service.js';
import { latencyHistogram, millis } from './support/latency.js';

const EVIDENCES = Number(process.env.BENCH_EVIDENCES ?? '5000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '500');
const USERS = Number(process.env.BENCH_USERS ?? '50');
const ASSETS = Number(process.env.BENCH_ASSETS ?? '500');
const WARMUP = Number(process.env.BENCH_WARMUP ?? '500');

interface Outcome {
  seconds: number;
  statuses: Map<number, number>;
  latencies: ReturnType<typeof latencyHistogram>;
  transactions: Set<string>;
  timestamps: Map<string, Set<number>>;
}

interface Target {
  trackID: string;
  token: string;
}

async function post(url: string, token: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** `count` evidences from `clients` concurrent clients, request i going to target i mod n. */
async function run(
  trackApiUrl: string,
  targets: Target[],
  count: number,
  clients: number,
): Promise<Outcome> {
  const statuses = new Map<number, number>();
  const latencies = latencyHistogram();
  const transactions = new Set<string>();
  const timestamps = new Map<string, Set<number>>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        const target = targets[i % targets.length];
        if (!target) break;
        const sent = performance.now();
        const response = await post(
          `${trackApiUrl}/assets/${target.trackID}/transactions`,
          target.token,
          { metadata: { reading: i, sensor: { kind: 'temperature', celsius: 4.5 } } },
        );
        const body = (await response.json()) as {
          data?: { transactionHash?: string; timestamp?: number };
        };
        latencies.recordValue(Math.round((performance.now() - sent) * 1_000));
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (body.data?.transactionHash !== undefined) transactions.add(body.data.transactionHash);
        if (body.data?.timestamp !== undefined) {
          const seen = timestamps.get(target.trackID) ?? new Set<number>();
          seen.add(body.data.timestamp);
          timestamps.set(target.trackID, seen);
        }
      }
    }),
  );
  return {
    seconds: (performance.now() - started) / 1_000,
    statuses,
    latencies,
    transactions,
    timestamps,
  };
}

async function createAsset(service: BenchService, token: string, assetId: string) {
  const response = await post(`${service.running.trackApiUrl}/assets`, token, {
    assetId,
    data: { id: assetId, version: '1' },
    networkId: 31337,
  });
  if (response.status !== 201) throw new Error(`creating ${assetId}: ${String(response.status)}`);
  return ((await response.json()) as { data: { trackID: string } }).data.trackID;
}

function report(label: string, outcome: Outcome): void {
  const added = outcome.statuses.get(201) ?? 0;
  const distinct = [...outcome.timestamps.values()].reduce((sum, seen) => sum + seen.size, 0);
  console.log(`\n${label}`);
  console.log(
    `  statuses      ${[...outcome.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`).join(', ')}`,
  );
  console.log(`  duration      ${outcome.seconds.toFixed(2)} s`);
  console.log(
    `  throughput    ${(added / outcome.seconds).toFixed(0)} evidences/s (goal >= 1,000 batched)`,
  );
  console.log(
    `  latency       p50 ${millis(outcome.latencies, 50)} ms, p99 ${millis(outcome.latencies, 99)} ms, max ${millis(outcome.latencies, 100)} ms`,
  );
  console.log(
    `  batching      ${String(outcome.transactions.size)} transactions, ${(added / Math.max(1, outcome.transactions.size)).toFixed(1)} evidences per transaction`,
  );
  console.log(
    `  timestamps    ${String(distinct)} distinct (asset, second) keys for ${String(added)} evidences`,
  );
}

async function main(): Promise<void> {
  const service = await startBenchService('evidences');
  try {
    const users = await service.users(USERS, 2 * (EVIDENCES + WARMUP) + ASSETS + 1);
    const [owner] = users;
    if (!owner) throw new Error('no benchmark user');
    const url = service.running.trackApiUrl;

    // One hot asset, shared with every user so that no single credit row is the bottleneck.
    const hot = await createAsset(service, owner.token, 'hot-asset');
    for (const user of users.slice(1)) {
      const shared = await fetch(`${url}/assets/${hot}/shares/did:user:${user.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${owner.token}` },
      });
      if (shared.status !== 200) throw new Error(`sharing: ${String(shared.status)}`);
    }
    const hotTargets = users.map((user) => ({ trackID: hot, token: user.token }));

    // Many assets, each of its own user in turn; created concurrently, so they anchor in batches.
    const spread: Target[] = await Promise.all(
      Array.from({ length: ASSETS }, async (_, i) => {
        const user = users[i % users.length] ?? owner;
        return {
          trackID: await createAsset(service, user.token, `asset-${String(i)}`),
          token: user.token,
        };
      }),
    );

    await run(url, spread, WARMUP, Math.min(CLIENTS, WARMUP));
    const hotOutcome = await run(url, hotTargets, EVIDENCES, CLIENTS);
    const spreadOutcome = await run(url, spread, EVIDENCES, CLIENTS);

    console.log(
      `Evidences through the tracking API, ${service.backend} database, local chain; ${String(CLIENTS)} concurrent clients over ${String(USERS)} users; ${String(EVIDENCES)} requests per run after ${String(WARMUP)} warm-up`,
    );
    report('one hot asset (every request queues on its clock row)', hotOutcome);
    report(`${String(ASSETS)} assets`, spreadOutcome);
  } finally {
    await service.stop();
  }
}

void main();
