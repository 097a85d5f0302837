import { Wallet, type FeeData, type JsonRpcProvider } from 'ethers';
import type { Knex } from 'knex';
import type { NetworkConfig } from '../networks/network-config.js';
import { JsonRpcClient } from '../rpc/json-rpc-client.js';
import { createJsonRpcProvider } from '../rpc/json-rpc-provider.js';
import type { AnchorLogger } from './anchor-logger.js';
import {
  abandonBatch,
  claimBatch,
  pendingBatchCount,
  pendingBatches,
  queuedBacklog,
  settleBatch,
  type PendingBatch,
} from './anchor-queue.js';
import { RECORD_KINDS, type AnchorReceipt, type RecordKind } from './anchor-record.js';
import { backoffDelay } from './backoff.js';
import { contractFor, signBatch } from './batch-transaction.js';

export interface AnchorerTiming {
  /** How often the queue is looked at when nothing wakes the anchorer. */
  pollIntervalMs: number;
  /** Batches signed but not yet mined, per network, before new ones wait. */
  maxInFlight: number;
  /** How long a sent transaction may stay unmined before it is broadcast again. */
  rebroadcastAfterMs: number;
  /** Retry delays after a failure (RPC or database): exponential between these bounds. */
  retryBaseMs: number;
  retryMaxMs: number;
  rpcTimeoutMs: number;
}

export const DEFAULT_ANCHORER_TIMING: AnchorerTiming = {
  pollIntervalMs: 25,
  maxInFlight: 4,
  rebroadcastAfterMs: 3_000,
  retryBaseMs: 100,
  retryMaxMs: 5_000,
  rpcTimeoutMs: 5_000,
};

/** What an anchorer tells its engine as soon as it knows, before any other process could. */
export interface AnchorerEvents {
  anchored(receipts: AnchorReceipt[]): void;
  failed(records: { recordId: number; reason: string }[]): void;
}

/** Messages nodes give when a transaction is already in the pool or its nonce already used. */
const ALREADY_SEEN =
  /already known|known transaction|nonce too low|nonce has already been used|replacement transaction underpriced|already imported/i;

/**
 * Anchors the queued records of one network: claims batches, sends them, and settles them once
 * mined with the configured confirmations. All state lives in the database, so any number of
 * anchorers (in any number of processes) can run for the same network, and a restarted one picks
 * up exactly where the crashed one stopped.
 */
export class NetworkAnchorer {
  readonly #knex: Knex;
  readonly #network: NetworkConfig;
  readonly #timing: AnchorerTiming;
  readonly #logger: AnchorLogger;
  readonly #events: AnchorerEvents;
  readonly #provider: JsonRpcProvider;
  readonly #rpc: JsonRpcClient;
  readonly #wallet: Wallet;
  /** When this process last broadcast each batch; empty after a restart, so all go out again. */
  readonly #broadcastAt = new Map<number, number>();
  readonly #sender = new Loop();
  readonly #settler = new Loop();
  /** Set after a batch reverted: the next batches are simulated to find the refused records. */
  #simulate = true;
  #fees: { at: number; data: Promise<FeeData> } | undefined;

  constructor(input: {
    knex: Knex;
    network: NetworkConfig;
    timing: AnchorerTiming;
    logger: AnchorLogger;
    events: AnchorerEvents;
  }) {
    this.#knex = input.knex;
    this.#network = input.network;
    this.#timing = input.timing;
    this.#logger = input.logger;
    this.#events = input.events;
    this.#provider = createJsonRpcProvider(
      input.network.rpcUrl,
      input.network.chainId,
      input.timing.rpcTimeoutMs,
    );
    this.#rpc = new JsonRpcClient(input.network.rpcUrl, input.timing.rpcTimeoutMs);
    this.#wallet = new Wallet(input.network.signerKey, this.#provider);
  }

  /**
   * Two loops: one claims and sends batches, the other settles them from receipts, so a batch is
   * prepared while the previous one is being mined.
   */
  start(): void {
    this.#sender.start(() => this.#sendStep(), this.#onFailure('sending'));
    this.#settler.start(() => this.#settleStep(), this.#onFailure('settling'));
  }

  async stop(): Promise<void> {
    await Promise.all([this.#sender.stop(), this.#settler.stop()]);
    this.#provider.destroy();
  }

  /** Looks at the queue now rather than at the next poll. */
  wake(): void {
    this.#sender.wake();
  }

  #onFailure(what: string) {
    return (error: unknown, attempt: number): number => {
      const delay = backoffDelay(attempt, this.#timing.retryBaseMs, this.#timing.retryMaxMs);
      this.#logger.warn(
        { networkId: this.#network.networkId, attempt, retryInMs: delay, err: describe(error) },
        `anchoring: ${what} failed; retrying`,
      );
      return delay;
    };
  }

  /** Sends the next ready batch; returns how long to wait before looking again. */
  async #sendStep(): Promise<number> {
    const inFlight = await pendingBatchCount(this.#knex, this.#network.networkId);
    if (inFlight >= this.#timing.maxInFlight) return this.#timing.pollIntervalMs;
    let nextCheckMs = this.#timing.pollIntervalMs;
    for (const kind of RECORD_KINDS) {
      const { maxSize, maxWaitMs } = this.#network.batch;
      const backlog = await queuedBacklog(this.#knex, this.#network.networkId, kind, maxSize);
      if (backlog.count === 0) continue;
      if (backlog.count < maxSize && backlog.oldestAgeMs < maxWaitMs) {
        nextCheckMs = Math.min(
          nextCheckMs,
          Math.max(1, Math.ceil(maxWaitMs - backlog.oldestAgeMs)),
        );
        continue;
      }
      if (await this.#sendBatch(kind)) return 0;
    }
    return nextCheckMs;
  }

  async #settleStep(): Promise<number> {
    await this.#settlePending();
    return this.#timing.pollIntervalMs;
  }

  /** Fee data for a second at most: batches sent in a burst share one look-up. */
  #feeData(): Promise<FeeData> {
    const now = Date.now();
    if (!this.#fees || now - this.#fees.at > 1_000) {
      const data = this.#provider.getFeeData();
      this.#fees = { at: now, data };
      data.catch(() => {
        this.#fees = undefined;
      });
    }
    return this.#fees.data;
  }

  async #sendBatch(kind: RecordKind): Promise<boolean> {
    const simulate = this.#simulate;
    // Fetched before the claim transaction opens, so that it holds its locks (and, on the embedded
    // database, its only connection) for signing alone rather than for a network round trip.
    await this.#feeData();
    const claimed = await claimBatch(this.#knex, {
      networkId: this.#network.networkId,
      kind,
      signer: this.#wallet.address,
      maxSize: this.#network.batch.maxSize,
      chainNonce: () => this.#rpc.transactionCount(this.#wallet.address, 'pending'),
      sign: (records, nonce) =>
        signBatch({
          provider: this.#provider,
          wallet: this.#wallet,
          network: this.#network,
          kind,
          records,
          nonce,
          simulate,
          fees: () => this.#feeData(),
        }),
    });
    if (!claimed) return false;
    if (simulate && claimed.batch) this.#simulate = false;
    for (const { recordId, reason } of claimed.rejected) {
      this.#logger.error(
        { networkId: this.#network.networkId, recordId, reason },
        'record refused by the registry',
      );
    }
    if (claimed.rejected.length > 0) this.#events.failed(claimed.rejected);
    if (!claimed.batch) return claimed.rejected.length > 0;
    await this.#broadcast(claimed.batch);
    this.#settler.wake();
    return true;
  }

  async #broadcast(batch: PendingBatch): Promise<void> {
    this.#broadcastAt.set(batch.id, Date.now());
    try {
      await this.#rpc.sendRawTransaction(batch.rawTransaction);
    } catch (error) {
      if (!ALREADY_SEEN.test(describe(error))) throw error;
    }
  }

  /** Settles or re-sends every unsettled batch of this network. */
  async #settlePending(): Promise<void> {
    const batches = await pendingBatches(this.#knex, this.#network.networkId);
    if (batches.length === 0) return;
    const latestBlock = await this.#rpc.blockNumber();
    for (const batch of batches) {
      const receipt = await this.#rpc.receipt(batch.transactionHash);
      if (receipt) {
        if (latestBlock - receipt.blockNumber + 1 < this.#network.confirmations) continue;
        if (receipt.success) {
          const smartContract = contractFor(this.#network, batch.kind);
          const settledRecords = await settleBatch(this.#knex, {
            batchId: batch.id,
            blockNumber: receipt.blockNumber,
            smartContract,
          });
          // Undefined: another process settled it first, and its waiters learn it by polling.
          if (settledRecords) {
            const { recordIds, anchoredAt } = settledRecords;
            this.#events.anchored(
              recordIds.map((recordId) => ({
                recordId,
                networkId: this.#network.networkId,
                smartContract,
                transactionHash: batch.transactionHash,
                blockNumber: receipt.blockNumber,
                anchoredAt,
              })),
            );
          }
        } else {
          this.#logger.error(
            {
              networkId: this.#network.networkId,
              batchId: batch.id,
              transactionHash: batch.transactionHash,
            },
            'batch transaction reverted; its records are queued again and simulated first',
          );
          await abandonBatch(this.#knex, batch, 'reverted', undefined);
          this.#simulate = true;
        }
        this.#broadcastAt.delete(batch.id);
        this.#sender.wake();
        continue;
      }
      const sentAt = this.#broadcastAt.get(batch.id);
      if (sentAt !== undefined && Date.now() - sentAt < this.#timing.rebroadcastAfterMs) continue;
      if (batch.signer !== this.#wallet.address) continue;
      await this.#rebroadcast(batch);
    }
  }

  /** Sends an unmined batch again; if its nonce was consumed by another transaction, gives it up. */
  async #rebroadcast(batch: PendingBatch): Promise<void> {
    await this.#broadcast(batch);
    const minedNonce = await this.#rpc.transactionCount(batch.signer, 'latest');
    if (minedNonce <= batch.nonce) return;
    // The nonce is used on chain: either by this very transaction (a receipt shows up) or by another.
    const receipt = await this.#rpc.receipt(batch.transactionHash);
    if (receipt) return;
    this.#logger.warn(
      { networkId: this.#network.networkId, batchId: batch.id, nonce: batch.nonce },
      'batch nonce was used by another transaction; its records are queued again',
    );
    await abandonBatch(this.#knex, batch, 'nonce used by another transaction', minedNonce);
    this.#broadcastAt.delete(batch.id);
    this.#sender.wake();
  }
}

/**
 * A loop that runs a step, then waits the delay the step asks for (or until woken); a failing
 * step is retried after the delay `onFailure` gives for its consecutive attempt number.
 */
class Loop {
  #running = false;
  #done: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  start(step: () => Promise<number>, onFailure: (error: unknown, attempt: number) => number): void {
    if (this.#running) return;
    this.#running = true;
    this.#done = (async () => {
      let failures = 0;
      while (this.#running) {
        let delay: number;
        try {
          delay = await step();
          failures = 0;
        } catch (error) {
          failures += 1;
          delay = onFailure(error, failures);
        }
        // stop() wakes a sleeping loop, so a stopped loop never waits out a long delay.
        if (delay > 0) await this.#sleep(delay);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#done;
  }

  wake(): void {
    this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const short = (error as { shortMessage?: string }).shortMessage;
    const info = (error as { info?: { error?: { message?: string } } }).info?.error?.message;
    return [short ?? error.message, info].filter(Boolean).join(': ');
  }
  return String(error);
}
