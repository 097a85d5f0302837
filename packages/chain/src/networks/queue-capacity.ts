/**
 * How many records a network's queue may hold before creations are refused (503 `networkBusy`
 * with `Retry-After`): what the chain can take in one anchor timeout. A record queued beyond that
 * could not be anchored within a synchronous request's wait anyway, and one acknowledged pending
 * would only wait longer; past it, clients are told to come back once the queue has drained.
 */

/**
 * Gas a record costs in a full data batch of the batch registries (10,922 measured on 2 s blocks,
 * docs/performance.md), rounded up.
 */
export const GAS_PER_RECORD = 11_000;

/** A network's block gas limit when the networks file names none (Hardhat's default, and mainnet's). */
export const DEFAULT_BLOCK_GAS_LIMIT = 30_000_000;

/**
 * The time between blocks of a network that names no `blockTimeMs`: an automining development
 * chain (the embedded one) mines each batch at once, and is taken to take a block's worth a second.
 */
export const DEFAULT_CAPACITY_BLOCK_TIME_MS = 1_000;

/** A network's queue limit, and the rate at which its chain drains the queue. */
export interface QueueCapacity {
  /** Records the chain can take per second: block gas limit / gas per record / block time. */
  recordsPerSecond: number;
  /** Records pending anchoring (queued, or in a batch not yet mined) past which creations get 503. */
  maxQueuedRecords: number;
}

export interface QueueCapacityInput {
  blockGasLimit?: number | undefined;
  blockTimeMs?: number | undefined;
  /** The synchronous wait; 30 s when absent, as the anchoring engine's default. */
  anchorTimeoutMs?: number | undefined;
  /** The networks file's override of the limit. */
  maxQueuedRecords?: number | undefined;
}

/**
 * The queue limit of a network: `maxQueuedRecords` from the networks file, or records per second
 * times the anchor timeout in seconds. The embedded chain (30 M gas, no block time, 30 s):
 * 30,000,000 / 11,000 / 1 s = 2,727 records/s, times 30 s = 81,818 records.
 */
export function queueCapacity(input: QueueCapacityInput): QueueCapacity {
  const blockGasLimit = input.blockGasLimit ?? DEFAULT_BLOCK_GAS_LIMIT;
  const blockTimeMs =
    input.blockTimeMs !== undefined && input.blockTimeMs > 0
      ? input.blockTimeMs
      : DEFAULT_CAPACITY_BLOCK_TIME_MS;
  const recordsPerSecond = ((blockGasLimit / GAS_PER_RECORD) * 1_000) / blockTimeMs;
  const anchorTimeoutMs = input.anchorTimeoutMs ?? 30_000;
  return {
    recordsPerSecond,
    maxQueuedRecords:
      input.maxQueuedRecords ??
      Math.max(2, Math.floor((recordsPerSecond * anchorTimeoutMs) / 1_000)),
  };
}
