import {
  JsonRpcClient,
  type AnchoringObserver,
  type NetworkConfig,
  type SettledReceipt,
} from '@trustpoint/chain';
import {
  findAnchorRecordNetworks,
  readAnchorQueueDepth,
  type AnchorQueueDepth,
} from '@trustpoint/db';
import { computeAddress } from 'ethers';
import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRICS_PREFIX } from './metrics-registry.js';

export interface AnchoringMetricsOptions {
  registry: Registry;
  knex: Knex;
  networks: readonly NetworkConfig[];
  /** Per JSON-RPC call made for a scrape or a settled batch. Default 2 s. */
  rpcTimeoutMs?: number;
}

const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 150, 200, 250, 500, 1000];
const GAS_PER_RECORD_BUCKETS = [
  10_000, 15_000, 20_000, 25_000, 30_000, 40_000, 50_000, 75_000, 100_000, 200_000,
];
const CONFIRMATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600];

/**
 * The anchoring series. Counters and histograms come from what this process settles (register
 * the returned observer with `engine.observe`), so summed over processes each record counts once;
 * the queue and the registrar balances are read at scrape time from the database and the nodes,
 * so every process reports the same values (aggregate them with `max`, not `sum`).
 */
export function anchoringMetrics(options: AnchoringMetricsOptions): AnchoringObserver {
  const { registry, knex } = options;
  const timeoutMs = options.rpcTimeoutMs ?? 2_000;
  const rpcs = new Map(
    options.networks.map((network) => [
      network.networkId,
      {
        rpc: new JsonRpcClient(network.rpcUrl, timeoutMs),
        registrar: computeAddress(network.signerKey),
      },
    ]),
  );

  const anchored = new Counter({
    name: `${METRICS_PREFIX}anchor_records_anchored_total`,
    help: 'Records anchored by this process, per network',
    labelNames: ['network'] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: `${METRICS_PREFIX}anchor_records_failed_total`,
    help: 'Records the registry refused for good, per network',
    labelNames: ['network'] as const,
    registers: [registry],
  });
  // Every network's counters start at 0: a rate over a series that never appeared is "no data",
  // not 0, and an alert on failures would stay silent until the first one.
  for (const network of options.networks) {
    anchored.inc({ network: network.networkId }, 0);
    failed.inc({ network: network.networkId }, 0);
  }
  const batchSize = new Histogram({
    name: `${METRICS_PREFIX}anchor_batch_size`,
    help: 'Records per settled batch transaction, per network',
    labelNames: ['network'] as const,
    buckets: BATCH_SIZE_BUCKETS,
    registers: [registry],
  });
  const gasPerRecord = new Histogram({
    name: `${METRICS_PREFIX}anchor_gas_per_record`,
    help: 'Gas used by a settled batch transaction divided by its records, per network',
    labelNames: ['network'] as const,
    buckets: GAS_PER_RECORD_BUCKETS,
    registers: [registry],
  });
  const confirmation = new Histogram({
    name: `${METRICS_PREFIX}anchor_confirmation_seconds`,
    help: 'From a record queued to its batch mined with the network confirmations, per network',
    labelNames: ['network'] as const,
    buckets: CONFIRMATION_BUCKETS,
    registers: [registry],
  });

  new Gauge({
    name: `${METRICS_PREFIX}anchor_queue_records`,
    help: 'Records waiting: queued (in no batch yet) or batched (in a sent batch not yet settled), per network; 0 when none',
    labelNames: ['network', 'state'] as const,
    registers: [registry],
    async collect() {
      const depths = await queueDepthOrNone(knex);
      this.reset();
      if (depths === undefined) return;
      // 0 for every network and state with none, so "wait until it is 0" sees a 0.
      for (const network of options.networks) {
        for (const state of QUEUE_STATES) this.set({ network: network.networkId, state }, 0);
      }
      for (const depth of depths) {
        this.set({ network: depth.networkId, state: depth.state }, depth.count);
      }
    },
  });
  new Gauge({
    name: `${METRICS_PREFIX}anchor_queue_oldest_age_seconds`,
    help: 'Age of the oldest record not yet anchored (queued or batched), per network; 0 when none',
    labelNames: ['network'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const oldest = new Map<string, number>();
      for (const network of options.networks) oldest.set(network.networkId, 0);
      for (const depth of (await queueDepthOrNone(knex)) ?? []) {
        oldest.set(
          depth.networkId,
          Math.max(oldest.get(depth.networkId) ?? 0, depth.oldestAgeSeconds),
        );
      }
      for (const [network, age] of oldest) this.set({ network }, age);
    },
  });
  new Gauge({
    name: `${METRICS_PREFIX}registrar_balance_ether`,
    help: "The registrar's balance in the network's native currency, read from its node at scrape time",
    labelNames: ['network'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        [...rpcs].map(async ([network, { rpc, registrar }]) => {
          try {
            this.set({ network }, Number(await rpc.balance(registrar)) / 1e18);
          } catch {
            // A node that does not answer leaves the series out; /readyz says why.
          }
        }),
      );
    },
  });

  const observeBatch = async (receipts: readonly SettledReceipt[]): Promise<void> => {
    const first = receipts[0];
    if (first === undefined) return;
    const network = first.networkId;
    // The anchorer that settled them read when they were queued.
    for (const { queuedAt } of receipts) {
      const seconds = (first.anchoredAt.getTime() - queuedAt.getTime()) / 1000;
      confirmation.observe({ network }, Math.max(0, seconds));
    }
    const client = rpcs.get(network);
    if (client === undefined) return;
    const receipt = await client.rpc.call<{ gasUsed?: string } | null>(
      'eth_getTransactionReceipt',
      [first.transactionHash],
    );
    if (receipt?.gasUsed !== undefined) {
      gasPerRecord.observe({ network }, Number(receipt.gasUsed) / receipts.length);
    }
  };

  return {
    anchored(receipts) {
      // One call per batch, but group by transaction all the same: cheap, and never wrong.
      const batches = new Map<string, SettledReceipt[]>();
      for (const receipt of receipts) {
        const list = batches.get(receipt.transactionHash) ?? [];
        list.push(receipt);
        batches.set(receipt.transactionHash, list);
      }
      for (const batch of batches.values()) {
        const network = batch[0]?.networkId ?? 'unknown';
        anchored.inc({ network }, batch.length);
        batchSize.observe({ network }, batch.length);
        // Best effort: a metric never fails anchoring.
        void observeBatch(batch).catch(() => undefined);
      }
    },
    failed(records) {
      // The failure event names records only; their network is read back.
      void findAnchorRecordNetworks(
        knex,
        records.map((record) => record.recordId),
      )
        .then((networks) => {
          for (const network of networks) failed.inc({ network });
        })
        .catch(() => undefined);
    },
  };
}

/** The states of a record waiting in the queue (`AnchorQueueDepth`). */
const QUEUE_STATES: readonly AnchorQueueDepth['state'][] = ['queued', 'batched'];

/**
 * Undefined when the database does not answer: the queue's series are left out then (a scrape
 * still answers, and a 0 would claim an empty queue); /readyz says why.
 */
async function queueDepthOrNone(knex: Knex): Promise<AnchorQueueDepth[] | undefined> {
  try {
    return await readAnchorQueueDepth(knex);
  } catch {
    return undefined;
  }
}
