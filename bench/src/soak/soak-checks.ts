// What a soak checks once the load is over: every acknowledgement settled (the API shows the record
// anchored), each record on chain exactly once with the hash the database holds, nothing on chain
// that the database lacks, credits spent equal to records paid for, and the `trustpoint reconcile`
// verdict.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { scanRegistries } from '@trustpoint/chain';
import { jsonRpcCall } from '@trustpoint/contracts';
import type { Database } from '@trustpoint/db';
import {
  decodeGetEvidenceResponse,
  decodeGetTrustPointResponse,
  evidenceKey,
  getEvidenceRequest,
  getTrustPointRequest,
  trustPointKey,
} from '@trustpoint/verifier';
import type { Acknowledgement, SoakUser } from './soak-load.js';

const CLI = join(__dirname, '..', '..', '..', 'apps', 'cli', 'dist', 'index.js');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Settled {
  status: string;
  transactionHash?: string;
}

export function acknowledgementKey(ack: Acknowledgement): string {
  return (
    ack.kind === 'trustpoint'
      ? trustPointKey(ack.certID, ack.timestamp)
      : evidenceKey(ack.assetHash, ack.timestamp)
  ).toLowerCase();
}

export interface SettlementResult {
  /** From the end of the load until the API showed every acknowledged record anchored. */
  settleSeconds: number;
  /** Acknowledgements not anchored by the deadline, with what the API showed. */
  unsettled: { ack: Acknowledgement; seen: string }[];
}

/**
 * Asks the API about each acknowledged record (its owner's token) until all are anchored or
 * `timeoutMs` passes.
 */
export async function waitForSettlement(input: {
  acknowledgements: Acknowledgement[];
  users: SoakUser[];
  certApi: string;
  trackApi: string;
  timeoutMs: number;
}): Promise<SettlementResult> {
  const started = Date.now();
  const tokens = new Map(input.users.map((user) => [user.id, user.token]));
  const get = async (url: string, userId: string) => {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${tokens.get(userId) ?? ''}` },
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status !== 200) return { status: response.status, data: undefined };
    return { status: 200, data: ((await response.json()) as { data: unknown }).data };
  };
  let waiting = input.acknowledgements.map((ack) => ({ ack, seen: 'not asked yet' }));
  for (;;) {
    const byResource = new Map<string, typeof waiting>();
    for (const entry of waiting) {
      const resource = entry.ack.kind === 'trustpoint' ? entry.ack.certID : entry.ack.trackID;
      byResource.set(resource, [...(byResource.get(resource) ?? []), entry]);
    }
    const still: typeof waiting = [];
    for (const [resource, entries] of byResource) {
      const first = entries[0]?.ack;
      if (first === undefined) continue;
      const url =
        first.kind === 'trustpoint'
          ? `${input.certApi}/certificates/certID/${encodeURIComponent(resource)}`
          : `${input.trackApi}/assets/${encodeURIComponent(resource)}`;
      const answer = await get(url, first.userId).catch((error: unknown) => ({
        status: 0,
        data: String(error),
      }));
      for (const entry of entries) {
        const seen = settledItem(entry.ack, answer.data);
        if (answer.status !== 200) {
          still.push({ ack: entry.ack, seen: `GET answered ${String(answer.status)}` });
        } else if (seen === undefined) {
          still.push({ ack: entry.ack, seen: 'absent from the record' });
        } else if (seen.status !== 'anchored' || seen.transactionHash === undefined) {
          still.push({ ack: entry.ack, seen: seen.status });
        }
      }
    }
    waiting = still;
    const elapsed = Date.now() - started;
    if (waiting.length === 0 || elapsed > input.timeoutMs) {
      return { settleSeconds: elapsed / 1_000, unsettled: waiting };
    }
    await sleep(1_000);
  }
}

/** The acknowledged trustpoint or evidence in the certificate or asset the API shows. */
function settledItem(ack: Acknowledgement, data: unknown): Settled | undefined {
  if (data === undefined || typeof data !== 'object') return undefined;
  if (ack.kind === 'trustpoint') {
    const metadata = (data as { metadata: (Settled & { type: string; timestamp: number })[] })
      .metadata;
    return metadata.find(
      (item) => item.type === ack.trustpointType && item.timestamp === ack.timestamp,
    );
  }
  const transactions = (data as { transactions: (Settled & { timestamp: number; hash: string })[] })
    .transactions;
  return transactions.find((item) => item.timestamp === ack.timestamp && item.hash === ack.hash);
}

export interface ChainCheck {
  /** Records read from the registries: record events, and the records of data batches. */
  records: number;
  /** Acknowledged records that `getTrustPoint` / `getEvidence` does not find. */
  missing: string[];
  /** Keys recorded more than once. */
  doubled: string[];
  /** Records on chain (or acknowledged ones read back) with another hash than the database's. */
  mismatched: string[];
  /** Records on chain that no anchored record of the database has. */
  orphaned: string[];
  /** Records the database holds as anchored. */
  anchoredInDatabase: number;
}

/**
 * A record's identity on chain: the registry and the top 126 bits of its key, all that a data
 * batch keeps (its registry finds records by them).
 */
const identityOf = (registry: string, keyPrefix: bigint) =>
  `${registry.toLowerCase()}:${keyPrefix.toString(16)}`;

/**
 * Each acknowledged record read back as a verifier reads it (`getTrustPoint` / `getEvidence`,
 * one `eth_call`), and every record the registries hold (`scanRegistries`: their events, and the
 * code of their data batches) compared with the database's anchored records.
 */
export async function checkChain(input: {
  nodeUrl: string;
  registry: string;
  repository: string;
  database: Database;
  acknowledgements: Acknowledgement[];
}): Promise<ChainCheck> {
  const rows = await input.database
    .knex('anchor_records')
    .where({ status: 'anchored' })
    .select<{ record_key: string; hash: string; kind: string }[]>('record_key', 'hash', 'kind');
  const registryOf = (kind: string) => (kind === 'trustpoint' ? input.registry : input.repository);
  const anchored = new Map(
    rows.map((row) => [
      identityOf(registryOf(row.kind), BigInt(row.record_key.trim()) >> 130n),
      row.hash,
    ]),
  );
  const byKey = new Map(rows.map((row) => [row.record_key.trim().toLowerCase(), row.hash]));

  const missing: string[] = [];
  const mismatched: string[] = [];
  for (const ack of input.acknowledgements) {
    const request =
      ack.kind === 'trustpoint'
        ? getTrustPointRequest({
            smartContract: input.registry,
            certId: ack.certID,
            timestampMs: ack.timestamp,
          })
        : getEvidenceRequest({
            smartContract: input.repository,
            assetHash: ack.assetHash,
            timestampSeconds: ack.timestamp,
          });
    const response = await fetch(input.nodeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    });
    const reply: unknown = await response.json();
    const lookup =
      ack.kind === 'trustpoint'
        ? decodeGetTrustPointResponse(reply)
        : decodeGetEvidenceResponse(reply);
    const key = acknowledgementKey(ack);
    if (!lookup.found) missing.push(key);
    else if (lookup.hash !== byKey.get(key)) mismatched.push(key);
  }

  const counts = new Map<string, number>();
  const records = await scanRegistries({
    rpcUrl: input.nodeUrl,
    contracts: [input.registry, input.repository],
    toBlock: Number(await jsonRpcCall(input.nodeUrl, 'eth_blockNumber')),
  });
  for (const record of records) {
    const identity = identityOf(record.contract, record.keyPrefix);
    counts.set(identity, (counts.get(identity) ?? 0) + 1);
    const hash = anchored.get(identity);
    if (hash !== undefined && hash !== record.hash) mismatched.push(identity);
  }
  return {
    records: records.length,
    missing,
    doubled: [...counts].filter(([, n]) => n > 1).map(([prefix]) => prefix),
    mismatched: [...new Set(mismatched)],
    orphaned: [...counts.keys()].filter((prefix) => !anchored.has(prefix)),
    anchoredInDatabase: anchored.size,
  };
}

export interface CreditsCheck {
  /**
   * Per user: credits spent (the ledger's spends less its refunds), records paid for, and whether
   * the ledger's amounts add up to the balance.
   */
  users: { userId: string; spent: number; paidRecords: number; addsUp: boolean }[];
  mismatched: string[];
}

/**
 * Credits spent, from the admin API's ledger (its spends less its refunds), against the records
 * each user paid for that the database still holds (a refused or withdrawn record is refunded);
 * and the ledger adds up: its amounts sum to the balance.
 */
export async function checkCredits(input: {
  adminUrl: string;
  adminToken: string;
  users: SoakUser[];
  database: Database;
}): Promise<CreditsCheck> {
  const paid = await input.database
    .knex('anchor_records')
    .whereNotNull('paid_by')
    .whereNotIn('status', ['failed', 'cancelled'])
    .groupBy('paid_by')
    .select<{ paid_by: string; n: string | number }[]>(
      'paid_by',
      input.database.knex.raw('count(*) as n'),
    );
  const paidBy = new Map(paid.map((row) => [row.paid_by, Number(row.n)]));
  const users: CreditsCheck['users'] = [];
  for (const user of input.users) {
    let offset = 0;
    let moved = 0;
    let spent = 0;
    let balance = 0;
    for (;;) {
      const response = await fetch(
        `${input.adminUrl}/users/${encodeURIComponent(user.id)}/credits?limit=100&offset=${String(offset)}`,
        { headers: { Authorization: `Bearer ${input.adminToken}` } },
      );
      if (response.status !== 200) {
        throw new Error(`credits of ${user.id}: the admin API answered ${String(response.status)}`);
      }
      const { data } = (await response.json()) as {
        data: {
          balance: number;
          movements: { kind: string; amount: number | string }[];
          pagination: { total: number };
        };
      };
      balance = data.balance;
      for (const movement of data.movements) {
        moved += Number(movement.amount);
        if (movement.kind === 'spend' || movement.kind === 'refund')
          spent -= Number(movement.amount);
      }
      offset += data.movements.length;
      if (data.movements.length === 0 || offset >= data.pagination.total) break;
    }
    users.push({
      userId: user.id,
      spent,
      paidRecords: paidBy.get(user.id) ?? 0,
      addsUp: moved === balance,
    });
  }
  return {
    users,
    mismatched: users
      .filter((user) => user.spent !== user.paidRecords || !user.addsUp)
      .map((user) => user.userId),
  };
}

export interface ReconcileOutcome {
  /** False when this build's `trustpoint` has no `reconcile` command. */
  available: boolean;
  exitCode: number | null;
  /** The parsed `--json` output: one network's report or an array of them. */
  reports: unknown[];
  /** Sum of each count over the networks. */
  counts: Record<string, number>;
  output: string;
}

/** `trustpoint reconcile --json` against the running certificate API (admin) and the chain. */
export async function runReconcile(env: NodeJS.ProcessEnv): Promise<ReconcileOutcome> {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; output: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => {
        resolve({ code, stdout, output });
      });
    });
  const help = await run(['--help']);
  if (!/^\s+reconcile\b/m.test(help.output)) {
    return { available: false, exitCode: null, reports: [], counts: {}, output: help.output };
  }
  const { code, stdout, output } = await run(['reconcile', '--json']);
  let reports: unknown[] = [];
  try {
    // The report is stdout's; on a disagreement (exit 11) stderr says so in a line of its own.
    reports = [JSON.parse(stdout) as unknown].flat();
  } catch {
    reports = [];
  }
  const counts: Record<string, number> = {};
  for (const report of reports) {
    const reportCounts = (report as { counts?: Record<string, unknown> }).counts ?? {};
    for (const [name, value] of Object.entries(reportCounts)) {
      counts[name] = (counts[name] ?? 0) + Number(value);
    }
  }
  return { available: true, exitCode: code, reports, counts, output };
}
