// A soak under faults: mixed load from many users through two processes of each API while the
// soak SIGKILLs API processes, anchoring processes and the chain node's relay, and crash-restarts
// PostgreSQL, each restarted at once; then it checks that nothing acknowledged was lost or doubled.
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import { freePort } from '@trustpoint/contracts';
import { jsonRoundTripsPerSecond } from '../support/machine-check.js';
import {
  checkChain,
  checkCredits,
  runReconcile,
  waitForSettlement,
  type ChainCheck,
  type CreditsCheck,
  type ReconcileOutcome,
} from './soak-checks.js';
import {
  NETWORK_ID,
  startSoakDeployment,
  type RoleSlot,
  type SoakDeployment,
} from './soak-deployment.js';
import {
  EXPECTED_ERRORS,
  OPERATIONS,
  runSoakLoad,
  type Acknowledgement,
  type SoakUser,
} from './soak-load.js';
import { planFaults, type FaultCounts, type FaultKind } from './fault-plan.js';

export interface SoakOptions {
  durationMs: number;
  faults: FaultCounts;
  clients: number;
  users: number;
  /** Processes of each API (cert and track), and anchoring processes. */
  apiProcesses: number;
  anchorProcesses: number;
  blockMs: number;
  confirmations: number;
  /** How long acknowledged records may take to settle after the load. */
  settleTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = {
  durationMs: 10 * 60_000,
  faults: { apiKills: 20, anchorKills: 10, nodeKills: 5, postgresRestarts: 1 },
  clients: 32,
  users: 16,
  apiProcesses: 2,
  anchorProcesses: 2,
  blockMs: 1_000,
  confirmations: 2,
  settleTimeoutMs: 180_000,
  requestTimeoutMs: 120_000,
};

export interface InjectedFault {
  kind: FaultKind;
  /** The process or server killed. */
  target: string;
  plannedAtS: number;
  atS: number;
  /** From the kill until the replacement was ready. */
  downMs: number;
  error?: string;
}

export interface OperationSummary {
  operation: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  outcomes: Record<string, number>;
}

export interface SoakResult {
  startedAt: string;
  options: SoakOptions;
  machine: { loadAverageAtStart: number[]; loadAverageAtEnd: number[]; jsonRoundTripsPerS: number };
  load: {
    seconds: number;
    requests: number;
    requestsPerS: number;
    acknowledged: number;
    acknowledgedPerS: number;
    acknowledgedByKind: Record<string, number>;
  };
  operations: OperationSummary[];
  errors: { expected: Record<string, number>; unexpected: Record<string, number> };
  faults: InjectedFault[];
  settlement: { seconds: number; unsettled: { record: string; seen: string }[] };
  chain: Omit<ChainCheck, 'missing' | 'doubled' | 'mismatched' | 'orphaned'> & {
    missing: number;
    doubled: number;
    mismatched: number;
    orphaned: number;
    examples: string[];
  };
  credits: { users: number; spent: number; paidRecords: number; mismatchedUsers: string[] };
  reconcile: Omit<ReconcileOutcome, 'output'> & { output: string };
  rolesThatDiedOnTheirOwn: string[];
  problems: string[];
  passed: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback server whose every page is its own path: a URL certificate's content. */
async function startUrlTargets(): Promise<{ base: string; server: Server }> {
  const port = await freePort();
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${request.url ?? ''}\n`);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${String(port)}/pages`, server };
}

async function adminCall(
  deployment: SoakDeployment,
  method: string,
  path: string,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(`${deployment.adminUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${deployment.adminToken}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) {
    throw new Error(`admin ${method} ${path} answered ${String(response.status)}: ${text}`);
  }
  return (JSON.parse(text) as { data: unknown }).data;
}

/** Qualified users (they may sign) with credits for anything the run could create, through the admin API. */
async function createUsers(deployment: SoakDeployment, count: number): Promise<SoakUser[]> {
  await adminCall(deployment, 'POST', '/plans', {
    id: 'soak',
    name: 'Soak plan',
    networkIds: [NETWORK_ID],
  });
  const users: SoakUser[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = `soak-${String(i)}`;
    await adminCall(deployment, 'POST', '/users', {
      id,
      displayName: `Soak user ${String(i)}`,
      planId: 'soak',
      qualified: true,
      credits: 1_000_000,
    });
    const token = (await adminCall(deployment, 'POST', `/users/${id}/tokens`, {
      expiresInSeconds: 7 * 24 * 3600,
    })) as { accessToken: string };
    users.push({ id, token: token.accessToken });
  }
  return users;
}

/** Runs the planned faults in order, each at its time, each process restarted at once. */
async function injectFaults(
  deployment: SoakDeployment,
  options: SoakOptions,
  loadStarted: number,
): Promise<InjectedFault[]> {
  const injected: InjectedFault[] = [];
  const apis: RoleSlot[] = [];
  for (let i = 0; i < options.apiProcesses; i += 1) {
    const cert = deployment.certApis[i];
    const track = deployment.trackApis[i];
    if (cert !== undefined) apis.push(cert);
    if (track !== undefined) apis.push(track);
  }
  let apiTurn = 0;
  let anchorTurn = 0;
  for (const fault of planFaults(options.faults, options.durationMs)) {
    const wait = loadStarted + fault.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    const atS = (Date.now() - loadStarted) / 1_000;
    let target = '';
    let outcome: Promise<{ downMs: number }>;
    switch (fault.kind) {
      case 'api process': {
        const slot = apis[apiTurn++ % apis.length];
        target = slot?.name ?? '';
        outcome = slot ? slot.killAndRestart() : Promise.resolve({ downMs: 0 });
        break;
      }
      case 'anchoring process': {
        const slot = deployment.anchorers[anchorTurn++ % deployment.anchorers.length];
        target = slot?.name ?? '';
        outcome = slot ? slot.killAndRestart() : Promise.resolve({ downMs: 0 });
        break;
      }
      case 'chain node':
        target = 'JSON-RPC relay in front of the node';
        outcome = deployment.relay.killAndRestart();
        break;
      case 'postgresql':
        target = 'PostgreSQL (pg_ctl stop -m immediate, start)';
        outcome = deployment.postgres.crashRestart();
        break;
    }
    try {
      const { downMs } = await outcome;
      injected.push({ kind: fault.kind, target, plannedAtS: fault.atMs / 1_000, atS, downMs });
    } catch (error) {
      injected.push({
        kind: fault.kind,
        target,
        plannedAtS: fault.atMs / 1_000,
        atS,
        downMs: Date.now() - loadStarted - atS * 1_000,
        error: (error as Error).message.slice(0, 2_000),
      });
    }
  }
  return injected;
}

/** Until the anchoring queue holds nothing queued or batched, or the deadline. */
async function untilQueueDrained(deployment: SoakDeployment, deadline: number): Promise<number> {
  for (;;) {
    const [row] = await deployment.database
      .knex('anchor_records')
      .whereIn('status', ['queued', 'batched'])
      .count<{ n: string | number }[]>('* as n');
    const left = Number(row?.n ?? 0);
    if (left === 0 || Date.now() > deadline) return left;
    await sleep(1_000);
  }
}

function keyOf(ack: Acknowledgement): string {
  return ack.kind === 'trustpoint'
    ? `${ack.trustpointType} of ${ack.certID} at ${String(ack.timestamp)}`
    : `evidence of ${ack.trackID} at ${String(ack.timestamp)}`;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const startedAt = new Date().toISOString();
  const loadAverageAtStart = loadavg();
  const jsonRoundTripsPerS = jsonRoundTripsPerSecond();
  const deployment = await startSoakDeployment({
    chain: { blockMs: options.blockMs, confirmations: options.confirmations },
    apiProcesses: options.apiProcesses,
    anchorProcesses: options.anchorProcesses,
  });
  const urlTargets = await startUrlTargets();
  try {
    const users = await createUsers(deployment, options.users);
    const certApis = deployment.certApis.map((slot) => slot.url ?? '');
    const trackApis = deployment.trackApis.map((slot) => slot.url ?? '');

    const loadStarted = Date.now();
    // Every fault lands under load: when restarts fall behind the plan, the load waits for them.
    const injecting = injectFaults(deployment, options, loadStarted);
    const [load, faults] = await Promise.all([
      runSoakLoad({
        users,
        certApis,
        trackApis,
        urlTargetBase: urlTargets.base,
        clients: options.clients,
        durationMs: options.durationMs,
        requestTimeoutMs: options.requestTimeoutMs,
        lastsUntil: injecting,
      }),
      injecting,
    ]);
    const loadEnded = Date.now();

    const settleDeadline = loadEnded + options.settleTimeoutMs;
    const settlement = await waitForSettlement({
      acknowledgements: load.acknowledgements,
      users,
      certApi: certApis[0] ?? '',
      trackApi: trackApis[0] ?? '',
      timeoutMs: options.settleTimeoutMs,
    });
    // Unacknowledged records too (answers cut by a kill): the chain check compares every one.
    const leftInQueue = await untilQueueDrained(deployment, settleDeadline);
    const chain = await checkChain({
      nodeUrl: deployment.node.url,
      registry: deployment.registry,
      repository: deployment.repository,
      database: deployment.database,
      acknowledgements: load.acknowledgements,
    });
    const credits: CreditsCheck = await checkCredits({
      adminUrl: deployment.adminUrl,
      adminToken: deployment.adminToken,
      users,
      database: deployment.database,
    });
    const reconcile = await runReconcile({
      ...deployment.env,
      TRUSTPOINT_URL: (certApis[0] ?? '').replace(/\/cert\/v2$/, ''),
      TRUSTPOINT_TOKEN: deployment.adminToken,
      // The node itself: the chain as it is, whatever the relay in front of it does.
      TRUSTPOINT_RPC: `${NETWORK_ID}=${deployment.node.url}`,
    });
    const died = [...deployment.certApis, ...deployment.trackApis, ...deployment.anchorers]
      .filter((slot) => slot.exitedOnItsOwn())
      .map((slot) => `${slot.name}:\n${slot.output().slice(-4_000)}`);

    return summarize({
      startedAt,
      options,
      machine: { loadAverageAtStart, loadAverageAtEnd: loadavg(), jsonRoundTripsPerS },
      load,
      faults,
      settlement,
      leftInQueue,
      chain,
      credits,
      reconcile,
      died,
    });
  } finally {
    await new Promise((resolve) => urlTargets.server.close(resolve));
    await deployment.stop();
  }
}

function summarize(input: {
  startedAt: string;
  options: SoakOptions;
  machine: SoakResult['machine'];
  load: Awaited<ReturnType<typeof runSoakLoad>>;
  faults: InjectedFault[];
  settlement: Awaited<ReturnType<typeof waitForSettlement>>;
  leftInQueue: number;
  chain: ChainCheck;
  credits: CreditsCheck;
  reconcile: ReconcileOutcome;
  died: string[];
}): SoakResult {
  const { load, chain, credits, reconcile } = input;
  const expected: Record<string, number> = {};
  const unexpected: Record<string, number> = {};
  const operations: OperationSummary[] = [];
  for (const operation of OPERATIONS) {
    const stat = load.stats.get(operation);
    if (stat === undefined) continue;
    const outcomes = Object.fromEntries(stat.outcomes);
    for (const [outcome, count] of stat.outcomes) {
      if (/^status 2\d\d$/.test(outcome)) continue;
      const bucket = EXPECTED_ERRORS.has(outcome) ? expected : unexpected;
      const name = bucket === unexpected ? `${outcome} (${operation})` : outcome;
      bucket[name] = (bucket[name] ?? 0) + count;
    }
    const requests = [...stat.outcomes.values()].reduce((sum, n) => sum + n, 0);
    operations.push({
      operation,
      requests,
      p50Ms: stat.latency.getValueAtPercentile(50) / 1_000,
      p99Ms: stat.latency.getValueAtPercentile(99) / 1_000,
      outcomes,
    });
  }
  const acknowledgedByKind: Record<string, number> = {};
  for (const ack of load.acknowledgements) {
    const kind = ack.kind === 'trustpoint' ? `${ack.trustpointType} trustpoint` : 'asset evidence';
    acknowledgedByKind[kind] = (acknowledgedByKind[kind] ?? 0) + 1;
  }

  const problems: string[] = [];
  const count = (n: number, what: string) => {
    if (n > 0) problems.push(`${String(n)} ${what}`);
  };
  for (const [outcome, n] of Object.entries(unexpected)) count(n, `unexpected answers: ${outcome}`);
  count(input.settlement.unsettled.length, 'acknowledged records not anchored in time (lost?)');
  count(input.leftInQueue, 'records still queued or batched after the settle deadline');
  count(chain.missing.length, 'acknowledged records missing on chain');
  count(chain.doubled.length, 'record keys registered more than once on chain');
  count(chain.mismatched.length, 'records with another hash on chain than in the database');
  count(chain.orphaned.length, 'records on chain that no anchored record of the database has');
  count(credits.mismatched.length, 'users whose credits spent differ from their records');
  count(input.died.length, 'role processes that exited on their own');
  for (const fault of input.faults) {
    if (fault.error !== undefined) problems.push(`${fault.target} did not restart: ${fault.error}`);
  }
  if (reconcile.available && reconcile.exitCode !== 0) {
    problems.push(
      `trustpoint reconcile exited ${String(reconcile.exitCode)}: ${
        reconcile.reports.length > 0
          ? JSON.stringify(reconcile.counts)
          : reconcile.output.trim().slice(0, 500)
      }`,
    );
  }
  const acknowledged = load.acknowledgements.length;
  return {
    startedAt: input.startedAt,
    options: input.options,
    machine: input.machine,
    load: {
      seconds: load.seconds,
      requests: load.requests,
      requestsPerS: load.requests / load.seconds,
      acknowledged,
      acknowledgedPerS: acknowledged / load.seconds,
      acknowledgedByKind,
    },
    operations,
    errors: { expected, unexpected },
    faults: input.faults,
    settlement: {
      seconds: input.settlement.settleSeconds,
      unsettled: input.settlement.unsettled.map(({ ack, seen }) => ({ record: keyOf(ack), seen })),
    },
    chain: {
      records: chain.records,
      anchoredInDatabase: chain.anchoredInDatabase,
      missing: chain.missing.length,
      doubled: chain.doubled.length,
      mismatched: chain.mismatched.length,
      orphaned: chain.orphaned.length,
      examples: [...chain.missing, ...chain.doubled, ...chain.mismatched, ...chain.orphaned].slice(
        0,
        10,
      ),
    },
    credits: {
      users: credits.users.length,
      spent: credits.users.reduce((sum, user) => sum + user.spent, 0),
      paidRecords: credits.users.reduce((sum, user) => sum + user.paidRecords, 0),
      mismatchedUsers: credits.mismatched,
    },
    reconcile: {
      ...reconcile,
      output: reconcile.available ? reconcile.output.slice(0, 4_000) : '',
    },
    rolesThatDiedOnTheirOwn: input.died,
    problems,
    passed: problems.length === 0,
  };
}
