import type { RegistryGeneration } from '@trustpoint/registry-abi';
import {
  abandonAnchorBatch,
  claimAnchorBatch,
  listPendingBatches,
  markTransactionPendingSince,
  readSendingState,
  settleAnchorBatch,
  storeReplacementTransaction,
  type BatchTransaction,
  type PendingBatch,
} from '@trustpoint/db';
import { Wallet, type JsonRpcProvider } from 'ethers';
import type { Knex } from 'knex';
import type { NetworkConfig } from '../networks/network-config.js';
import { JsonRpcClient, JsonRpcError } from '../rpc/json-rpc-client.js';
import { createJsonRpcProvider } from '../rpc/json-rpc-provider.js';
import type { AnchorLogger } from './anchor-logger.js';
import { RECORD_KINDS, type RecordKind, type SettledReceipt } from './anchor-record.js';
import { backoffDelay } from './backoff.js';
import {
  batchCapacity,
  contractFor,
  contractOfRaw,
  GENERATION_PROBE,
  signBatch,
  signReplacement,
} from './batch-transaction.js';
import {
  DEFAULT_FEE_POLICY,
  feesOfRaw,
  maxCostPerGas,
  replacementFees,
  type FeePolicy,
} from './fees.js';
import type { NetworkHealth } from './network-health.js';
import { describe, isNodeUnreachable, NODE_STARTING_ATTEMPTS } from './node-errors.js';
import { RegistrarWatch } from './registrar-watch.js';
import { IdleBackoff, StepLoop } from './step-loop.js';

export interface AnchorerTiming {
  /** How often the queue is looked at when nothing wakes the anchorer. */
  pollIntervalMs: number;
  /**
   * The longest wait between looks while the queue is empty and no batch is unsettled: the wait
   * doubles from `pollIntervalMs` up to this. Records queued in this process wake the anchorer
   * once their transaction commits; this bounds how late one queued by another process is seen.
   */
  idlePollMaxMs: number;
  /**
   * Batches signed and not yet mined, per network, before new ones wait. Batches mined and waiting
   * for their confirmations do not count: they are out of the pool and their nonces are taken.
   * More than a block takes (a 30 M gas block takes 5 full batches of 511), or blocks are left
   * with room: with 4, 2 s blocks took at most 2,044 records (1,022/s against 1,278/s they could,
   * bench:real-network); at most the 16 pending transactions a sender may keep in geth's and bor's
   * pools by default.
   */
  maxInFlight: number;
  /** How long a sent transaction may stay unmined before it is broadcast again. */
  rebroadcastAfterMs: number;
  /** Retry delays after a failure (RPC or database): exponential between these bounds. */
  retryBaseMs: number;
  retryMaxMs: number;
  rpcTimeoutMs: number;
  /** How often the registrar's balance is looked at while the network is ready and idle. */
  balanceCheckMs: number;
  /** How often it is looked at while the network is not ready (waiting for funds). */
  notReadyCheckMs: number;
}

/** The longest the settler goes without a full look at its unsettled batches (`#settlePending`). */
const FULL_LOOK_EVERY_MS = 1_000;

export const DEFAULT_ANCHORER_TIMING: AnchorerTiming = {
  pollIntervalMs: 25,
  idlePollMaxMs: 1_000,
  maxInFlight: 8,
  rebroadcastAfterMs: 3_000,
  retryBaseMs: 100,
  retryMaxMs: 5_000,
  rpcTimeoutMs: 5_000,
  balanceCheckMs: 10_000,
  notReadyCheckMs: 1_000,
};

/** What an anchorer tells its engine as soon as it knows, before any other process could. */
export interface AnchorerEvents {
  anchored(receipts: SettledReceipt[]): void;
  failed(records: { recordId: number; reason: string }[]): void;
  /** After every look at the registrar's balance. */
  health(health: NetworkHealth): void;
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
  readonly #sender = new StepLoop();
  readonly #settler = new StepLoop();
  /** How long each loop waits when it found nothing to do: longer at each idle look. */
  readonly #senderIdle: IdleBackoff;
  readonly #settlerIdle: IdleBackoff;
  /** Batches whose transaction this process saw mined and not yet confirmed: a reorg shows here. */
  readonly #seenMined = new Map<number, string>();
  /** Batches already reported as stuck at the fee cap (told once, not at every look). */
  readonly #atCap = new Set<number>();
  readonly #fees: FeePolicy;
  /** The registrar's funds at current fees, and whether another deployment signs with its key. */
  readonly #registrar: RegistrarWatch;
  /** Set after a batch reverted: the next batches are simulated to find the refused records. */
  #simulate = true;
  /** The generation of each registry this network names, asked of the chain once. */
  readonly #generations = new Map<string, RegistryGeneration>();
  /** The settler's last full look: the latest block then, when, and the unsettled batches found. */
  #lastLook = { block: -1, at: 0, batches: 0 };
  /** A batch went out since the settler's last full look: the next look is a full one. */
  #sentSinceLook = false;

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
      input.network.rpcHeaders,
    );
    this.#rpc = new JsonRpcClient(
      input.network.rpcUrl,
      input.timing.rpcTimeoutMs,
      input.network.rpcHeaders,
    );
    this.#wallet = new Wallet(input.network.signerKey, this.#provider);
    this.#senderIdle = new IdleBackoff(input.timing.pollIntervalMs, input.timing.idlePollMaxMs);
    this.#settlerIdle = new IdleBackoff(input.timing.pollIntervalMs, input.timing.idlePollMaxMs);
    this.#fees = input.network.fees ?? DEFAULT_FEE_POLICY;
    this.#registrar = new RegistrarWatch({
      knex: input.knex,
      network: input.network,
      logger: input.logger,
      onHealth: (health: NetworkHealth) => {
        input.events.health(health);
      },
      provider: this.#provider,
      rpc: this.#rpc,
      address: this.#wallet.address,
      fees: this.#fees,
    });
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

  /**
   * Looks at the queue now if the anchorer is idle (its looks a second apart); a busy one looks
   * within `pollIntervalMs` anyway, and is not made to look more often.
   */
  wake(): void {
    if (this.#senderIdle.idling) this.#wakeSender();
  }

  /** Looks at the queue now rather than at the next poll. */
  #wakeSender(): void {
    this.#senderIdle.reset();
    this.#sender.wake();
  }

  #onFailure(what: string) {
    return (error: unknown, attempt: number): number => {
      const delay = backoffDelay(attempt, this.#timing.retryBaseMs, this.#timing.retryMaxMs);
      const context = {
        networkId: this.#network.networkId,
        attempt,
        retryInMs: delay,
        err: describe(error),
      };
      if (isNodeUnreachable(error)) {
        // At a first start the chain node is often still starting: calm at first, a warning if
        // it stays away.
        const message = `anchoring: the chain node of network ${this.#network.networkId} is not answering yet (starting, or down); records wait in the queue, retrying`;
        if (attempt <= NODE_STARTING_ATTEMPTS) this.#logger.info(context, message);
        else this.#logger.warn(context, message);
        return delay;
      }
      this.#logger.warn(context, `anchoring: ${what} failed; retrying`);
      return delay;
    };
  }

  /** Sends the next ready batch; returns how long to wait before looking again. */
  async #sendStep(): Promise<number> {
    const sinceCheck = Date.now() - this.#registrar.checkedAt;
    const checkEvery =
      this.#registrar.health.state === 'notReady'
        ? this.#timing.notReadyCheckMs
        : this.#timing.balanceCheckMs;
    // At start, then at intervals while idle; before every batch too (below).
    if (sinceCheck >= checkEvery) {
      await this.#registrar.checkRegistries();
      await this.#registrar.checkBalance(1);
      await this.#registrar.checkKeyNotShared();
    }
    if (this.#registrar.health.state === 'notReady') {
      return Math.max(1, this.#timing.notReadyCheckMs - (Date.now() - this.#registrar.checkedAt));
    }
    // One look at the database for the batches in flight and every kind's queue.
    const batchSizes = new Map<RecordKind, number>();
    for (const kind of RECORD_KINDS) {
      // A network without a status registry writes no statuses; the revocation does not queue any.
      if (kind === 'status' && this.#network.statusRegistry === undefined) continue;
      batchSizes.set(
        kind,
        batchCapacity(await this.#generationOf(kind), this.#network.batch.maxSize),
      );
    }
    const { unsettled, backlogs } = await readSendingState(
      this.#knex,
      this.#network.networkId,
      batchSizes,
    );
    // Counting the batches that wait for confirmations too would leave blocks with room empty on a
    // network asking several: at most maxInFlight batches per `confirmations` blocks.
    const inFlight = Math.max(0, unsettled - this.#seenMined.size);
    if (inFlight >= this.#timing.maxInFlight) return this.#senderIdle.busy();
    let nextCheckMs = this.#timing.pollIntervalMs;
    let queued = false;
    // Nothing of ours waits to be mined: on a chain that mines at once, waiting gathers nothing
    // that the next batch, sent as soon as this one is mined, would not carry.
    const { maxWaitMs, sendWhenIdle } = this.#network.batch;
    const sendAtOnce = sendWhenIdle === true && inFlight === 0;
    for (const [kind, maxSize] of batchSizes) {
      const backlog = backlogs.get(kind);
      if (backlog === undefined || backlog.count === 0) continue;
      queued = true;
      if (!sendAtOnce && backlog.count < maxSize && backlog.oldestAgeMs < maxWaitMs) {
        nextCheckMs = Math.min(
          nextCheckMs,
          Math.max(1, Math.ceil(maxWaitMs - backlog.oldestAgeMs)),
        );
        continue;
      }
      if (!(await this.#registrar.checkBalance(backlog.count))) return this.#timing.notReadyCheckMs;
      if (await this.#sendBatch(kind)) return 0;
    }
    if (queued || unsettled > 0) {
      this.#senderIdle.reset();
      return nextCheckMs;
    }
    return this.#senderIdle.idle();
  }

  async #settleStep(): Promise<number> {
    if ((await this.#settlePending()) > 0) return this.#settlerIdle.busy();
    return this.#settlerIdle.idle();
  }

  /** Settles the batches just sent now rather than at the settler's next look. */
  #wakeSettler(): void {
    this.#settlerIdle.reset();
    this.#settler.wake();
  }

  /**
   * Whether the registry of `kind` keeps large batches as contract code (it answers `bucketOf`) or
   * one slot a record (it reverts): asked once per address, so a networks file names addresses
   * only, and a deployment moved to new registries keeps its earlier records where they are.
   */
  async #generationOf(kind: RecordKind): Promise<RegistryGeneration> {
    // The status registry keeps one word a certificate: no generations to tell apart.
    if (kind === 'status') return 'slots';
    const address = contractFor(this.#network, kind);
    const known = this.#generations.get(address);
    if (known) return known;
    let generation: RegistryGeneration;
    try {
      const answer = await this.#rpc.call<string>('eth_call', [
        { to: address, data: GENERATION_PROBE },
        'latest',
      ]);
      // Two words: (bucket, offset). A slot registry has no such function; no code answers "0x".
      generation = answer.length === 2 + 128 ? 'batches' : 'slots';
    } catch (error) {
      if (!(error instanceof JsonRpcError) || !/revert/i.test(error.message)) throw error;
      generation = 'slots';
    }
    this.#generations.set(address, generation);
    return generation;
  }

  async #sendBatch(kind: RecordKind): Promise<boolean> {
    const simulate = this.#simulate;
    const generation = await this.#generationOf(kind);
    // Fetched before the claim transaction opens, so that it holds its locks (and, on the embedded
    // database, its only connection) for signing alone rather than for a network round trip.
    await this.#registrar.feeData();
    const claimed = await claimAnchorBatch(this.#knex, {
      networkId: this.#network.networkId,
      kind,
      signer: this.#wallet.address,
      maxSize: batchCapacity(generation, this.#network.batch.maxSize),
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
          generation,
          fees: () => this.#registrar.transactionFees(),
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
    this.#wakeSettler();
    return true;
  }

  /**
   * Sends every stored transaction of a batch, oldest (lowest fees) first: at most one of them can
   * be mined, and a node keeps the best-paying one in its pool, refusing the others as underpriced.
   */
  async #broadcast(batch: PendingBatch): Promise<void> {
    this.#broadcastAt.set(batch.id, Date.now());
    this.#sentSinceLook = true;
    // One refused transaction (a replacement the balance cannot cover) must not keep the others
    // out of the pool: only when the node took none is it a failure.
    let failure: Error | undefined;
    let taken = false;
    for (const transaction of batch.transactions) {
      try {
        await this.#send(transaction.rawTransaction);
        taken = true;
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    if (!taken && failure) throw failure;
  }

  async #send(raw: string): Promise<void> {
    try {
      await this.#rpc.sendRawTransaction(raw);
    } catch (error) {
      if (!ALREADY_SEEN.test(describe(error))) throw error;
    }
  }

  /** The first of the batch's transactions that has a receipt: the one that was mined. */
  async #minedTransaction(batch: PendingBatch) {
    const receipts = await Promise.all(
      batch.transactions.map((transaction) => this.#rpc.receipt(transaction.transactionHash)),
    );
    for (const [index, receipt] of receipts.entries()) {
      const transaction = batch.transactions[index];
      if (receipt && transaction) return { transaction, receipt };
    }
    return undefined;
  }

  /**
   * Settles, replaces or re-sends every unsettled batch of this network; returns how many there
   * were.
   */
  async #settlePending(): Promise<number> {
    // Nothing can have been mined, confirmed or reorged without a new block: until one comes, a
    // look asks the node its latest block alone, not a receipt of every unsettled batch (a
    // receipt carries the batch's events, about 100 KB for 511 records, and at 2 s blocks with
    // 2 confirmations ten batches wait at a time: a look every 25 ms read 40 MB a second). A
    // full look still comes at least every `FULL_LOOK_EVERY_MS` (a block replaced at the same
    // height, a rebroadcast due) and after every batch sent.
    if (
      this.#lastLook.batches > 0 &&
      !this.#sentSinceLook &&
      Date.now() - this.#lastLook.at < FULL_LOOK_EVERY_MS &&
      (await this.#rpc.blockNumber()) === this.#lastLook.block
    ) {
      return this.#lastLook.batches;
    }
    this.#sentSinceLook = false;
    const lookedAt = Date.now();
    const batches = await listPendingBatches(this.#knex, this.#network.networkId);
    // Batches another process settled are no longer seen mined here.
    const unsettled = new Set(batches.map((batch) => batch.id));
    for (const id of this.#seenMined.keys()) if (!unsettled.has(id)) this.#seenMined.delete(id);
    if (batches.length === 0) {
      this.#lastLook = { block: -1, at: lookedAt, batches: 0 };
      return 0;
    }
    const latestBlock = await this.#rpc.blockNumber();
    this.#lastLook = { block: latestBlock, at: lookedAt, batches: batches.length };
    for (const batch of batches) {
      const mined = await this.#minedTransaction(batch);
      if (mined) {
        const { transaction, receipt } = mined;
        if (latestBlock - receipt.blockNumber + 1 < this.#network.confirmations) {
          // With 1 confirmation this is only the block number read before the receipt: no news.
          const news =
            this.#network.confirmations > 1 &&
            this.#seenMined.get(batch.id) !== transaction.transactionHash;
          // Mined: out of the pool, so it no longer holds a place in flight.
          if (!this.#seenMined.has(batch.id)) this.#wakeSender();
          this.#seenMined.set(batch.id, transaction.transactionHash);
          if (news) {
            this.#logger.info(
              {
                networkId: this.#network.networkId,
                batchId: batch.id,
                transactionHash: transaction.transactionHash,
                blockNumber: receipt.blockNumber,
              },
              `batch mined; waiting for ${String(this.#network.confirmations)} confirmations`,
            );
          }
          continue;
        }
        this.#seenMined.delete(batch.id);
        this.#atCap.delete(batch.id);
        // Settled or abandoned here: no longer one the next looks wait on.
        this.#lastLook.batches -= 1;
        if (receipt.success) {
          await this.#settle(batch, transaction, receipt.blockNumber);
        } else {
          this.#logger.error(
            {
              networkId: this.#network.networkId,
              batchId: batch.id,
              transactionHash: transaction.transactionHash,
            },
            'batch transaction reverted; its records are queued again and simulated first',
          );
          await abandonAnchorBatch(this.#knex, batch, 'reverted', undefined);
          this.#simulate = true;
        }
        this.#broadcastAt.delete(batch.id);
        this.#wakeSender();
        continue;
      }
      if (batch.signer !== this.#wallet.address) continue;
      const latest = batch.transactions.at(-1);
      if (!latest) continue;
      const reorged = this.#seenMined.get(batch.id);
      if (reorged !== undefined) {
        // Mined, then gone before its confirmations: the block was replaced (a reorg). The same
        // bytes go out again now, and replacement counts its blocks afresh.
        this.#seenMined.delete(batch.id);
        this.#logger.warn(
          {
            networkId: this.#network.networkId,
            batchId: batch.id,
            transactionHash: reorged,
            latestBlock,
          },
          'batch receipt disappeared before its confirmations (reorg); sending the batch again',
        );
        await markTransactionPendingSince(this.#knex, latest.id, latestBlock);
        await this.#rebroadcast(batch);
        continue;
      }
      const sentAt = this.#broadcastAt.get(batch.id);
      if (sentAt === undefined) {
        // Not sent by this process yet (it restarted, or another one signed the batch): every
        // stored transaction goes out again before any new one is signed.
        await this.#rebroadcast(batch);
        continue;
      }
      if (latest.pendingSinceBlock === null) {
        await markTransactionPendingSince(this.#knex, latest.id, latestBlock);
      } else if (
        latestBlock - latest.pendingSinceBlock >= this.#fees.replaceAfterBlocks &&
        (await this.#replace(batch, latest, latestBlock))
      ) {
        continue;
      }
      if (Date.now() - sentAt < this.#timing.rebroadcastAfterMs) continue;
      await this.#rebroadcast(batch);
    }
    return batches.length;
  }

  async #settle(batch: PendingBatch, transaction: BatchTransaction, blockNumber: number) {
    // The contract the transaction called: the configured one may have changed since it was signed.
    const smartContract = contractOfRaw(transaction.rawTransaction);
    const settledRecords = await settleAnchorBatch(this.#knex, {
      batchId: batch.id,
      transactionHash: transaction.transactionHash,
      blockNumber,
      smartContract,
    });
    // Undefined: another process settled it first, and its waiters learn it by polling.
    if (!settledRecords) return;
    const { records, anchoredAt } = settledRecords;
    this.#events.anchored(
      records.map(({ recordId, queuedAt }) => ({
        recordId,
        networkId: this.#network.networkId,
        smartContract,
        transactionHash: transaction.transactionHash,
        blockNumber,
        anchoredAt,
        queuedAt,
      })),
    );
  }

  /**
   * Replaces a batch's latest transaction, unmined for `replaceAfterBlocks` blocks, with one at the
   * same nonce and higher fees: stored first, then sent. False when no replacement can be made
   * (the fees are at the cap) or another anchorer made one first.
   */
  async #replace(
    batch: PendingBatch,
    latest: BatchTransaction,
    latestBlock: number,
  ): Promise<boolean> {
    const minedNonce = await this.#rpc.transactionCount(batch.signer, 'latest');
    // A nonce already used on chain (by another transaction, none of these has a receipt) needs
    // no replacement: the batch is given up and its records signed anew.
    if (minedNonce > batch.nonce) {
      await this.#rebroadcast(batch);
      return true;
    }
    // Behind an earlier nonce still unmined, no fee gets it mined sooner: it waits for its turn
    // (and, still unmined then, is replaced at once, its blocks already counted).
    if (minedNonce < batch.nonce) return false;
    const previous = feesOfRaw(latest.rawTransaction);
    const next = replacementFees(previous, await this.#registrar.feeData(), this.#fees);
    if (!next) {
      if (!this.#atCap.has(batch.id)) {
        this.#atCap.add(batch.id);
        this.#logger.warn(
          {
            networkId: this.#network.networkId,
            batchId: batch.id,
            nonce: batch.nonce,
            maxFeePerGas: maxCostPerGas(previous).toString(),
            maxFeePerGasCap: this.#fees.maxFeePerGasCap.toString(),
          },
          'batch not mined and its fees cannot be raised further (cap, or free gas); it waits',
        );
      }
      return false;
    }
    const signed = await signReplacement(this.#wallet, latest.rawTransaction, next);
    const stored = await storeReplacementTransaction(this.#knex, {
      batchId: batch.id,
      replacing: latest.id,
      raw: signed.raw,
      hash: signed.hash,
      pendingSinceBlock: latestBlock,
    });
    if (!stored) return false;
    this.#logger.info(
      {
        networkId: this.#network.networkId,
        batchId: batch.id,
        nonce: batch.nonce,
        replaced: latest.transactionHash,
        transactionHash: signed.hash,
        maxFeePerGas: maxCostPerGas(next).toString(),
      },
      `batch not mined after ${String(this.#fees.replaceAfterBlocks)} blocks; replaced with higher fees`,
    );
    this.#broadcastAt.set(batch.id, Date.now());
    try {
      await this.#send(signed.raw);
    } catch (error) {
      // Stored, so sent again with the others; meanwhile the earlier transaction stays pending.
      this.#logger.warn(
        { networkId: this.#network.networkId, batchId: batch.id, err: describe(error) },
        'the node did not take the replacement yet; it is sent again with the batch',
      );
    }
    return true;
  }

  /**
   * Sends an unmined batch again (all its stored transactions); if its nonce was consumed by
   * another transaction, gives it up: its records are queued again and signed anew.
   */
  async #rebroadcast(batch: PendingBatch): Promise<void> {
    await this.#broadcast(batch);
    const minedNonce = await this.#rpc.transactionCount(batch.signer, 'latest');
    if (minedNonce <= batch.nonce) return;
    // The nonce is used on chain: either by one of these transactions (a receipt shows up) or by another.
    if (await this.#minedTransaction(batch)) return;
    this.#logger.warn(
      { networkId: this.#network.networkId, batchId: batch.id, nonce: batch.nonce },
      'batch nonce was used by another transaction; its records are queued again',
    );
    await abandonAnchorBatch(this.#knex, batch, 'nonce used by another transaction', minedNonce);
    this.#broadcastAt.delete(batch.id);
    this.#atCap.delete(batch.id);
    this.#wakeSender();
  }
}
