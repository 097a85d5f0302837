import { JsonRpcClient } from '../rpc/json-rpc-client.js';
import {
  compareRecords,
  type DatabaseRecord,
  type NetworkReconciliation,
} from './compare-records.js';
import { firstBlockAtOrAfter, scanRegistries } from './registry-scan.js';

/**
 * How much earlier than `since` rows are asked for: a record created a little before `since` may be
 * mined after it, and its chain record must find its row rather than count as orphaned.
 */
export const SINCE_MARGIN_MS = 60 * 60 * 1_000;

export interface ReconcileNetworkOptions {
  network: string;
  /** A node of the network (never printed: providers put keys in URLs). */
  rpcUrl: string;
  /** Registries to read besides those the rows name: the network's current ones, and any given. */
  registries: readonly string[];
  /** The database's acknowledged records of the network created at or after `since` (all when undefined). */
  loadRecords: (since: Date | undefined) => Promise<DatabaseRecord[]>;
  /** Only records created (and chain records mined) at or after this time. */
  since?: Date;
  /** Wait up to this long for pending records to be anchored before comparing. Default 0. */
  waitMs?: number;
  /** Between two looks at the pending records while waiting. Default 1 s. */
  pollMs?: number;
  blockRange?: number;
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reconciles one network: reads the chain's head, then the database's records (again while some
 * are pending and `waitMs` allows), then every record the registries hold up to that head, and
 * compares them. The head is read first so that a record mined after it is pending, never a record
 * the database does not know yet.
 */
export async function reconcileNetwork(
  options: ReconcileNetworkOptions,
): Promise<NetworkReconciliation> {
  const client = new JsonRpcClient(options.rpcUrl, options.timeoutMs ?? 30_000);
  const deadline = Date.now() + (options.waitMs ?? 0);
  const rowsSince =
    options.since === undefined ? undefined : new Date(options.since.getTime() - SINCE_MARGIN_MS);
  let head: number;
  let rows: DatabaseRecord[];
  for (;;) {
    head = await client.blockNumber();
    rows = await options.loadRecords(rowsSince);
    const pending = rows.some(
      (row) =>
        row.status === 'queued' ||
        row.status === 'batched' ||
        (row.status === 'anchored' && (row.blockNumber ?? 0) > head),
    );
    if (!pending || Date.now() >= deadline) break;
    await sleep(Math.min(options.pollMs ?? 1_000, Math.max(0, deadline - Date.now())));
  }
  const fromBlock =
    options.since === undefined
      ? undefined
      : await firstBlockAtOrAfter(client, options.since, head);
  const contracts = [
    ...options.registries,
    ...rows.flatMap((row) => (row.contract === null ? [] : [row.contract])),
  ];
  const chain = await scanRegistries({
    rpcUrl: options.rpcUrl,
    contracts,
    toBlock: head,
    ...(fromBlock === undefined ? {} : { fromBlock }),
    ...(options.blockRange === undefined ? {} : { blockRange: options.blockRange }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return compareRecords(rows, chain, {
    network: options.network,
    toBlock: head,
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(fromBlock === undefined ? {} : { fromBlock }),
  });
}
