import { Wallet, type JsonRpcProvider } from 'ethers';
import type { Knex } from 'knex';
import type { NetworkConfig } from '../networks/network-config.js';
import { createJsonRpcProvider } from '../rpc/json-rpc-provider.js';
import type { AnchorLogger } from './anchor-logger.js';
import {
  abandonBatch,
  claimBatch,
  pendingBatches,
  queuedBacklog,
  settleBatch,
  type PendingBatch,
} from './anchor-queue.js';
import { RECORD_KINDS, type RecordKind } from './anchor-record.js';
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
  readonly #onSettled: (recordIds: number[]) => void;
  readonly #provider: JsonRpcProvider;
  readonly #wallet: Wallet;
  /** When this process last broadcast each batch; empty after a restart, so all go out again. */
  readonly #broadcastAt = new Map<number, number>();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #failures = 0;

  constructor(input: {
    knex: Knex;
    network: NetworkConfig;
    timing: AnchorerTiming;
    logger: AnchorLogger;
    onSettled: (recordIds: number[]) => void;
  }) {
    this.#knex = input.knex;
    this.#network = input.network;
    this.#timing = input.timing;
    this.#logger = input.logger;
    this.#onSettled = input.onSettled;
    this.#provider = createJsonRpcProvider(
      input.network.rpcUrl,
      input.network.chainId,
      input.timing.rpcTimeoutMs,
    );
    this.#wallet = new Wallet(input.network.signerKey, this.#provider);
  }

  get signer(): string {
    return this.#wallet.address;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
    this.#provider.destroy();
  }

  /** Looks at the queue now rather than at the next poll. */
  wake(): void {
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let delay: number;
      try {
        delay = await this.#step();
        this.#failures = 0;
      } catch (error) {
        this.#failures += 1;
        delay = backoffDelay(this.#failures, this.#timing.retryBaseMs, this.#timing.retryMaxMs);
        this.#logger.warn(
          {
            networkId: this.#network.networkId,
            attempt: this.#failures,
            retryInMs: delay,
            err: describe(error),
          },
          'anchoring step failed; retrying',
        );
      }
      // stop() wakes a sleeping loop, so a stopped anchorer never waits out a long delay.
      if (delay > 0) await this.#sleep(delay);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  /** One pass: settle what was sent, send what is ready. Returns how long to wait before the next. */
  async #step(): Promise<number> {
    const inFlight = await this.#settlePending();
    let nextCheckMs = this.#timing.pollIntervalMs;
    let sent = false;
    for (const kind of RECORD_KINDS) {
      if (inFlight + (sent ? 1 : 0) >= this.#timing.maxInFlight) break;
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
      sent = (await this.#sendBatch(kind)) || sent;
    }
    return sent ? 0 : nextCheckMs;
  }

  async #sendBatch(kind: RecordKind): Promise<boolean> {
    const claimed = await claimBatch(this.#knex, {
      networkId: this.#network.networkId,
      kind,
      signer: this.#wallet.address,
      maxSize: this.#network.batch.maxSize,
      chainNonce: () => this.#provider.getTransactionCount(this.#wallet.address, 'pending'),
      sign: (records, nonce) =>
        signBatch({
          provider: this.#provider,
          wallet: this.#wallet,
          network: this.#network,
          kind,
          records,
          nonce,
        }),
    });
    if (!claimed) return false;
    for (const { recordId, reason } of claimed.rejected) {
      this.#logger.error(
        { networkId: this.#network.networkId, recordId, reason },
        'record refused by the registry',
      );
    }
    if (claimed.rejected.length > 0) this.#onSettled(claimed.rejected.map((r) => r.recordId));
    if (!claimed.batch) return claimed.rejected.length > 0;
    await this.#broadcast(claimed.batch);
    return true;
  }

  async #broadcast(batch: PendingBatch): Promise<void> {
    this.#broadcastAt.set(batch.id, Date.now());
    try {
      await this.#provider.broadcastTransaction(batch.rawTransaction);
    } catch (error) {
      if (!ALREADY_SEEN.test(describe(error))) throw error;
    }
  }

  /** Settles or re-sends every unsettled batch of this network; returns how many are in flight. */
  async #settlePending(): Promise<number> {
    const batches = await pendingBatches(this.#knex, this.#network.networkId);
    if (batches.length === 0) return 0;
    const latestBlock = await this.#provider.getBlockNumber();
    let inFlight = 0;
    for (const batch of batches) {
      const receipt = await this.#provider.getTransactionReceipt(batch.transactionHash);
      if (receipt) {
        if (latestBlock - receipt.blockNumber + 1 < this.#network.confirmations) {
          inFlight += 1;
          continue;
        }
        if (receipt.status === 1) {
          const ids = await settleBatch(this.#knex, {
            batchId: batch.id,
            blockNumber: receipt.blockNumber,
            smartContract: contractFor(this.#network, batch.kind),
          });
          this.#broadcastAt.delete(batch.id);
          if (ids.length > 0) this.#onSettled(ids);
        } else {
          this.#logger.error(
            {
              networkId: this.#network.networkId,
              batchId: batch.id,
              transactionHash: batch.transactionHash,
            },
            'batch transaction reverted; its records are queued again',
          );
          await abandonBatch(this.#knex, batch, 'reverted', undefined);
          this.#broadcastAt.delete(batch.id);
        }
        continue;
      }
      inFlight += 1;
      const sentAt = this.#broadcastAt.get(batch.id);
      if (sentAt !== undefined && Date.now() - sentAt < this.#timing.rebroadcastAfterMs) continue;
      if (batch.signer !== this.#wallet.address) continue;
      await this.#rebroadcast(batch);
    }
    return inFlight;
  }

  /** Sends an unmined batch again; if its nonce was consumed by another transaction, gives it up. */
  async #rebroadcast(batch: PendingBatch): Promise<void> {
    await this.#broadcast(batch);
    const minedNonce = await this.#provider.getTransactionCount(batch.signer, 'latest');
    if (minedNonce <= batch.nonce) return;
    // The nonce is used on chain: either by this very transaction (a receipt shows up) or by another.
    const receipt = await this.#provider.getTransactionReceipt(batch.transactionHash);
    if (receipt) return;
    this.#logger.warn(
      { networkId: this.#network.networkId, batchId: batch.id, nonce: batch.nonce },
      'batch nonce was used by another transaction; its records are queued again',
    );
    await abandonBatch(this.#knex, batch, 'nonce used by another transaction', minedNonce);
    this.#broadcastAt.delete(batch.id);
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
