// Evidences added through the tracking API, end to end: each request is authenticated, spends a
// credit, takes the next free second of its assetHash, stores the evidence and queues it in one
// transaction, and is answered (201) only once it is mined. Many clients at once, so the engine
// batches. Two shapes: every request on one hot asset (they queue on its clock row), and
// requests spread over many assets.
// Run: npm run bench:evidences   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { startBenchService, type BenchService } from './support/bench-service.js';
import {
  clientThreads,
  describeClient,
  runHttpLoad,
  type LoadOutcome,
} from './support/http-load.js';
import { millis } from './support/latency.js';
import { describeMachineSpeed, jsonRoundTripsPerSecond } from './support/machine-check.js';

const EVIDENCES = Number(process.env.BENCH_EVIDENCES ?? '5000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '500');
const USERS = Number(process.env.BENCH_USERS ?? '50');
const ASSETS = Number(process.env.BENCH_ASSETS ?? '500');
const WARMUP = Number(process.env.BENCH_WARMUP ?? '500');
const THREADS = clientThreads();
/** A day: more than the hot asset's run takes (one second of its clock per evidence). */
const HOT_ASSET_AHEAD_SECONDS = 86_400;

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
): Promise<LoadOutcome> {
  return runHttpLoad({
    targets: targets.map((target) => ({
      url: `${trackApiUrl}/assets/${target.trackID}/transactions`,
      token: target.token,
    })),
    body: 'evidence',
    count,
    clients,
    threads: THREADS,
  });
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

function report(label: string, targets: Target[], outcome: LoadOutcome): void {
  const added = outcome.statuses.get(201) ?? 0;
  const transactions = new Set<string>();
  // The (asset, second) keys handed out: each must be distinct.
  const keys = new Set<string>();
  for (const response of outcome.responses) {
    if (response.transactionHash !== undefined) transactions.add(response.transactionHash);
    const trackID = targets[response.target]?.trackID;
    if (response.timestamp !== undefined && trackID !== undefined) {
      keys.add(`${trackID} ${String(response.timestamp)}`);
    }
  }
  const distinct = keys.size;
  console.log(`\n${label}`);
  console.log(
    `  statuses      ${[...outcome.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`).join(', ')}`,
  );
  console.log(`  duration      ${outcome.seconds.toFixed(2)} s`);
  console.log(
    `  throughput    ${(added / outcome.seconds).toFixed(0)} evidences/s (goal >= 3,000 on PostgreSQL)`,
  );
  console.log(
    `  latency       p50 ${millis(outcome.latencies, 50)} ms, p99 ${millis(outcome.latencies, 99)} ms, max ${millis(outcome.latencies, 100)} ms`,
  );
  console.log(
    `  batching      ${String(transactions.size)} transactions, ${(added / Math.max(1, transactions.size)).toFixed(1)} evidences per transaction`,
  );
  console.log(
    `  timestamps    ${String(distinct)} distinct (asset, second) keys for ${String(added)} evidences`,
  );
}

async function main(): Promise<void> {
  // An asset holds at most EVIDENCE_MAX_AHEAD_SECONDS of evidences ahead of the clock (60 by
  // default, one a second: past it 429 with Retry-After, by design). The hot asset's run asks for
  // thousands of seconds at once: the window is opened so that it measures the asset's clock row
  // under contention, not the window.
  const service = await startBenchService('evidences', {
    env: { EVIDENCE_MAX_AHEAD_SECONDS: String(HOT_ASSET_AHEAD_SECONDS) },
  });
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
    const speed = jsonRoundTripsPerSecond();
    const hotOutcome = await run(url, hotTargets, EVIDENCES, CLIENTS);
    const spreadOutcome = await run(url, spread, EVIDENCES, CLIENTS);

    console.log(
      `Evidences through the tracking API, ${service.backend} database, local chain; ${describeClient(CLIENTS, THREADS)}; ${String(USERS)} users; ${String(EVIDENCES)} requests per run after ${String(WARMUP)} warm-up; EVIDENCE_MAX_AHEAD_SECONDS ${String(HOT_ASSET_AHEAD_SECONDS)} (60 by default: one asset then takes 60 s of evidences ahead of the clock, the rest 429)`,
    );
    console.log(describeMachineSpeed(speed));
    report('one hot asset (every request queues on its clock row)', hotTargets, hotOutcome);
    report(`${String(ASSETS)} assets`, spread, spreadOutcome);
  } finally {
    await service.stop();
  }
}

void main();
