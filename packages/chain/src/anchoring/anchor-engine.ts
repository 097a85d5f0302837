import {
  cancelQueuedAnchorRecord,
  enqueueAnchorRecord,
  enqueueAnchorRecords,
  enqueueAnchorRecordsOnce,
  readAnchorRecordStates,
  type AnchorRecordState,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { NetworkRegistry } from '../networks/network-registry.js';
import { silentLogger, type AnchorLogger } from './anchor-logger.js';
import type { AnchoringObserver, FailedRecord } from './anchoring-observer.js';
import type { AnchorReceipt, AnchorRequest, SettledReceipt } from './anchor-record.js';
import { contractFor } from './batch-transaction.js';
import {
  DEFAULT_ANCHORER_TIMING,
  NetworkAnchorer,
  type AnchorerTiming,
} from './network-anchorer.js';
import { unknownHealth, type NetworkHealth } from './network-health.js';
import { QueueAdmission, type Admission } from './queue-admission.js';
export type { FailedRecord } from './anchoring-observer.js';
import { backfillRevocationStatuses, revocationStatusRequest } from './status-backfill.js';

export interface AnchorEngineOptions {
  /**
   * Connections for the anchorers, apart from the ones requests use, so that a flood of requests
   * never starves anchoring (PostgreSQL: a second small pool). Default: the engine's own knex.
   */
  anchoringKnex?: Knex;
  /** Run anchorers in this process; off for processes that only enqueue and wait. */
  anchoring?: boolean;
  /**
   * How long a request waits for its record to be mined before it is answered 503. Documented
   * default: 30 s. The record itself stays queued and is anchored once the chain is back.
   */
  anchorTimeoutMs?: number;
  /**
   * How often waiting requests look at their records' state in the database, for records that
   * another process anchored (this process's own anchorers resolve their waiters at once).
   */
  waitPollMs?: number;
  timing?: Partial<AnchorerTiming>;
  logger?: AnchorLogger;
  /**
   * Told of what this process's anchorers settle, as soon as they do: an anchoring thread passes
   * it on to the engine whose requests wait (`resolveAnchored`, `rejectFailed`).
   */
  onAnchored?: (receipts: SettledReceipt[]) => void;
  onFailed?: (records: FailedRecord[]) => void;
  /** Told of every look at a registrar's balance: an anchoring thread passes it on (`reportHealth`). */
  onHealth?: (health: NetworkHealth) => void;
  /**
   * Least time between two reads of a network's queue depth for its queue limit (`admit`), made
   * only while creations come. Default 250 ms.
   */
  queueReadEveryMs?: number;
}

/** A record the registry refused for good, and why. */
export const DEFAULT_ANCHOR_TIMEOUT_MS = 30_000;

/** A record that can never be anchored (the registry refused it, or it was withdrawn). */
export class AnchorFailedError extends Error {
  override readonly name = 'AnchorFailedError';
  constructor(
    readonly recordId: number,
    readonly reason: string,
  ) {
    super(`record ${String(recordId)} was not anchored: ${reason}`);
  }
}

/** How `enqueue` treats a network that is not ready. */
export interface EnqueueOptions {
  /** Queue the record anyway (its request is acknowledged pending) instead of failing with 503. */
  queueWhenNotReady?: boolean;
}

interface Waiter {
  resolve: (receipt: AnchorReceipt) => void;
  reject: (error: Error) => void;
  deadline: number;
}

/**
 * The anchoring engine of a process: one anchorer per network, and the waiting room of requests
 * whose records are on their way to the chain. Requests find out through the database, so a
 * record anchored by another process wakes its request here as well.
 */
export class AnchorEngine {
  readonly #knex: Knex;
  readonly #networks: NetworkRegistry;
  readonly #anchorers = new Map<string, NetworkAnchorer>();
  readonly #waiters = new Map<number, Waiter[]>();
  readonly #anchorTimeoutMs: number;
  readonly #waitPollMs: number;
  readonly #logger: AnchorLogger;
  /** Per network, what the last look at its registrar's balance found (here or in a thread). */
  readonly #health = new Map<string, NetworkHealth>();
  readonly #observers = new Set<AnchoringObserver>();
  #pollTimer: NodeJS.Timeout | undefined;
  #polling = false;
  /** A look was asked for while one ran, which may have read the records before they settled. */
  #pollAgain = false;
  readonly #anchoringKnex: Knex;
  #stopped = false;
  readonly #backfills: Promise<void>[] = [];
  readonly #admission: QueueAdmission;

  constructor(knex: Knex, networks: NetworkRegistry, options: AnchorEngineOptions = {}) {
    this.#knex = knex;
    this.#anchoringKnex = options.anchoringKnex ?? knex;
    this.#networks = networks;
    this.#anchorTimeoutMs = options.anchorTimeoutMs ?? DEFAULT_ANCHOR_TIMEOUT_MS;
    this.#waitPollMs = options.waitPollMs ?? 100;
    this.#logger = options.logger ?? silentLogger;
    this.#admission = new QueueAdmission(knex, networks, {
      logger: this.#logger,
      ...(options.queueReadEveryMs === undefined ? {} : { readEveryMs: options.queueReadEveryMs }),
    });
    if (options.anchoring ?? true) {
      const timing = { ...DEFAULT_ANCHORER_TIMING, ...options.timing };
      for (const network of networks.list()) {
        this.#anchorers.set(
          network.networkId,
          new NetworkAnchorer({
            knex: options.anchoringKnex ?? knex,
            network,
            timing,
            logger: this.#logger,
            events: {
              anchored: (receipts) => {
                this.resolveAnchored(receipts);
                options.onAnchored?.(receipts);
              },
              failed: (records) => {
                this.rejectFailed(records);
                options.onFailed?.(records);
              },
              health: (health) => {
                this.reportHealth(health);
                options.onHealth?.(health);
              },
            },
          }),
        );
      }
    }
  }

  start(): void {
    this.#stopped = false;
    for (const anchorer of this.#anchorers.values()) anchorer.start();
    for (const networkId of this.#anchorers.keys()) {
      this.#backfills.push(this.#backfillStatuses(networkId));
    }
  }

  /**
   * Queues the revocation status of certificates revoked before the network wrote statuses, in the
   * background of an anchoring process; a failure (database down) is retried, a stop ends it.
   */
  #isStopped(): boolean {
    return this.#stopped;
  }

  async #backfillStatuses(networkId: string): Promise<void> {
    const network = this.#networks.require(networkId);
    for (let attempt = 0; !this.#isStopped(); attempt += 1) {
      try {
        await backfillRevocationStatuses(this.#anchoringKnex, network, this.#logger, () =>
          this.#isStopped(),
        );
        return;
      } catch (error) {
        if (this.#isStopped()) return;
        this.#logger.warn(
          { networkId, err: String(error) },
          'could not queue the revocation statuses of earlier revocations; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 500 * 2 ** attempt)));
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#pollTimer);
    await Promise.all([...this.#anchorers.values()].map((anchorer) => anchorer.stop()));
    await Promise.all(this.#backfills.splice(0));
    for (const [id, waiters] of this.#waiters) {
      for (const waiter of waiters)
        waiter.reject(
          new DomainError('networkUnavailable', {
            detail: `engine stopped before record ${String(id)} was anchored`,
          }),
        );
    }
    this.#waiters.clear();
  }

  /**
   * Whether a network takes new records now: `notReady` while its registrar cannot pay for the
   * next batch at current fees; `unknown` before the first look (or in a process that neither
   * anchors nor hears from an anchoring thread), which counts as ready.
   */
  networkHealth(networkId: string): NetworkHealth {
    this.#networks.require(networkId);
    return this.#health.get(networkId) ?? unknownHealth(networkId);
  }

  /**
   * Tells `observer` of every batch this process's anchorers (or its anchoring thread) settle and
   * every look at a registrar; returns what stops it.
   */
  observe(observer: AnchoringObserver): () => void {
    this.#observers.add(observer);
    return () => {
      this.#observers.delete(observer);
    };
  }

  /** Records what an anchorer (here, or in an anchoring thread) found for a network. */
  reportHealth(health: NetworkHealth): void {
    for (const observer of this.#observers) observer.health?.(health);
    const previous = this.#health.get(health.networkId)?.state;
    this.#health.set(health.networkId, health);
    // Requests already waiting on that network's queued records are answered now, not at timeout.
    if (health.state === 'notReady' && previous !== 'notReady') this.#pollNow();
  }

  /**
   * Records were settled by another process (`listenForAnchoring` of `@trustpoint/db`): the
   * requests waiting here look at their records' state now, not at their next look (every
   * `waitPollMs`).
   */
  settledElsewhere(): void {
    this.#pollNow();
  }

  /** Looks at the waiters' records at once rather than at the next scheduled poll. */
  #pollNow(): void {
    if (this.#polling) {
      this.#pollAgain = true;
      return;
    }
    clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
    void this.#poll();
  }

  /** The `networkUnavailable` error (503) of a network that is not ready, if it is not. */
  #notReady(networkId: string): DomainError | undefined {
    const health = this.#health.get(networkId);
    if (health?.state !== 'notReady') return undefined;
    return new DomainError('networkUnavailable', {
      detail: `network ${networkId} is not ready: ${health.reason ?? 'registrar balance too low'}`,
    });
  }

  /**
   * Fails with `networkUnavailable` (503) when the network is not ready: what a request that would
   * wait for its record checks before it stores anything (one acknowledged pending need not).
   */
  requireReady(networkId: string): void {
    this.#networks.require(networkId);
    const notReady = this.#notReady(networkId);
    if (notReady) throw notReady;
  }

  /**
   * What a creating request asks before it stores anything: room for `records` more records on the
   * network's queue, held until the store it is given ends (`admission.during(() => store)`). Past the
   * network's limit (`maxQueuedRecords`), fails at once with `networkBusy` (503) and
   * `retryAfterSeconds`; see `QueueAdmission` for how the queue is counted.
   */
  admit(networkId: string, records: number): Promise<Admission> {
    return this.#admission.admit(networkId, records);
  }

  /**
   * Queues a record inside the caller's transaction; anchoring starts once it commits. On a
   * network that is not ready, fails at once with `networkUnavailable` (503), so the caller's
   * transaction creates nothing that would only wait, unless `queueWhenNotReady`: a record
   * acknowledged pending waits in the queue until the network is funded again.
   */
  async enqueue(
    trx: Knex | Knex.Transaction,
    request: AnchorRequest,
    options: EnqueueOptions = {},
  ): Promise<number> {
    this.#mayQueue(request, options);
    const id = await enqueueAnchorRecord(trx, request);
    this.#wakeOnCommit(trx);
    return id;
  }

  /** Queues several records in one statement of the caller's transaction; ids in the order given. */
  async enqueueAll(
    trx: Knex | Knex.Transaction,
    requests: readonly AnchorRequest[],
    options: EnqueueOptions = {},
  ): Promise<number[]> {
    for (const request of requests) this.#mayQueue(request, options);
    const ids = await enqueueAnchorRecords(trx, requests);
    if (ids.length > 0) this.#wakeOnCommit(trx);
    return ids;
  }

  /**
   * For records the caller queues itself, in one statement with other writes of its transaction
   * (`insertCertificatesWithWrites`): what `enqueueAll` checks first (each network known, and
   * ready unless `queueWhenNotReady`), and the anchorers woken once that transaction commits.
   */
  queueingWith(
    trx: Knex | Knex.Transaction,
    requests: readonly AnchorRequest[],
    options: EnqueueOptions = {},
  ): void {
    for (const request of requests) this.#mayQueue(request, options);
    if (requests.length > 0) this.#wakeOnCommit(trx);
  }

  /**
   * For records queued by a statement of the caller's that runs on its own and commits as it
   * ends (`insertCertificatesWithWrites` with `locksBalances`): checks what `enqueueAll` checks
   * before running it, and wakes the anchorers once it has ended well.
   */
  async queueingBy<T>(
    requests: readonly AnchorRequest[],
    options: EnqueueOptions,
    statement: () => Promise<T>,
  ): Promise<T> {
    for (const request of requests) this.#mayQueue(request, options);
    const result = await statement();
    if (requests.length > 0) this.#committed();
    return result;
  }

  /**
   * Queues a certificate's revocation status, in the caller's transaction, on each of `networkIds`
   * that has a status registry (the networks holding its Evidence trustpoints): from then on its
   * certID alone answers that it is revoked there. Queued whether or not a network is ready, like
   * the revocation itself once accepted; a status queued already is left as it is. Returns the
   * ids to wait on.
   */
  async enqueueRevocationStatus(
    trx: Knex | Knex.Transaction,
    revocation: { certId: string; timestamp: number; hash: string },
    networkIds: readonly string[],
  ): Promise<number[]> {
    const requests = networkIds
      .filter((networkId) => this.#networks.get(networkId)?.statusRegistry !== undefined)
      .map((networkId) => revocationStatusRequest(networkId, revocation));
    const ids = await enqueueAnchorRecordsOnce(trx, requests);
    if (ids.length > 0) this.#wakeOnCommit(trx);
    return ids;
  }

  /**
   * Has the anchorers look at the queue at once, rather than at their next look (every second
   * while idle): this process's own ones, and an anchoring thread's through its observer.
   */
  wake(): void {
    for (const anchorer of this.#anchorers.values()) anchorer.wake();
    for (const observer of this.#observers) observer.queued?.();
  }

  /** Whether a record may be queued: its network known, and ready unless `queueWhenNotReady`. */
  #mayQueue(request: AnchorRequest, options: EnqueueOptions): void {
    if (options.queueWhenNotReady) this.#networks.require(request.networkId);
    else this.requireReady(request.networkId);
  }

  /** Wakes the anchorers once the transaction that queued records commits (at once outside one). */
  #wakeOnCommit(trx: Knex | Knex.Transaction): void {
    if (!trx.isTransaction) {
      this.#committed();
      return;
    }
    let outer = trx as Knex.Transaction;
    while (outer.parentTransaction) outer = outer.parentTransaction;
    // A rollback queued nothing: nothing to look at.
    outer.executionPromise.then(
      () => {
        this.#committed();
      },
      () => undefined,
    );
  }

  /** Records queued here have committed: the anchorers look, the observers hear it. */
  #committed(): void {
    this.wake();
    for (const observer of this.#observers) observer.committedHere?.();
  }

  /** Withdraws a record no batch has taken yet (false: it is already on its way). */
  cancel(trx: Knex | Knex.Transaction, recordId: number): Promise<boolean> {
    return cancelQueuedAnchorRecord(trx, recordId);
  }

  /**
   * Resolves once the record is mined with the network's confirmations. Rejects with the
   * `networkUnavailable` domain error (503) after the anchor timeout, or as soon as the record is
   * seen still queued on a network that is not ready; with AnchorFailedError when the record can
   * never be anchored. The record itself stays queued either way.
   */
  waitForAnchor(recordId: number, timeoutMs = this.#anchorTimeoutMs): Promise<AnchorReceipt> {
    return new Promise((resolve, reject) => {
      const list = this.#waiters.get(recordId) ?? [];
      list.push({ resolve, reject, deadline: Date.now() + timeoutMs });
      this.#waiters.set(recordId, list);
      for (const anchorer of this.#anchorers.values()) anchorer.wake();
      this.#schedulePoll();
    });
  }

  /**
   * Answers the requests waiting on these records, anchored elsewhere (an anchoring thread):
   * sooner than the next look at the database would.
   */
  resolveAnchored(receipts: readonly SettledReceipt[]): void {
    for (const observer of this.#observers) observer.anchored?.(receipts);
    for (const receipt of receipts) this.#resolve(receipt.recordId, receipt);
  }

  /** Fails the requests waiting on these records, refused for good elsewhere. */
  rejectFailed(records: readonly FailedRecord[]): void {
    for (const observer of this.#observers) observer.failed?.(records);
    for (const { recordId, reason } of records) {
      this.#reject(recordId, new AnchorFailedError(recordId, reason));
    }
  }

  #schedulePoll(): void {
    if (this.#polling || this.#pollTimer !== undefined) return;
    this.#pollTimer = setTimeout(() => {
      this.#pollTimer = undefined;
      void this.#poll();
    }, this.#waitPollMs);
  }

  async #poll(): Promise<void> {
    if (this.#waiters.size === 0) return;
    this.#polling = true;
    this.#pollAgain = false;
    try {
      const states = await readAnchorRecordStates(this.#knex, [...this.#waiters.keys()]);
      for (const state of states) this.#settle(state);
    } catch (error) {
      this.#logger.warn({ err: String(error) }, 'could not read anchoring state; retrying');
    } finally {
      this.#polling = false;
    }
    const now = Date.now();
    for (const [id, waiters] of this.#waiters) {
      const expired = waiters.filter((waiter) => waiter.deadline <= now);
      if (expired.length === 0) continue;
      for (const waiter of expired) {
        waiter.reject(
          new DomainError('networkUnavailable', {
            detail: `record ${String(id)} not anchored in time`,
          }),
        );
      }
      const left = waiters.filter((waiter) => waiter.deadline > now);
      if (left.length > 0) this.#waiters.set(id, left);
      else this.#waiters.delete(id);
    }
    if (this.#waiters.size === 0) return;
    if (this.#takePollAgain()) void this.#poll();
    else this.#schedulePoll();
  }

  /** Whether a look was asked for while the last one ran; forgets it. */
  #takePollAgain(): boolean {
    const asked = this.#pollAgain;
    this.#pollAgain = false;
    return asked;
  }

  #settle(state: AnchorRecordState): void {
    if (
      state.status === 'anchored' &&
      state.transactionHash !== null &&
      state.blockNumber !== null &&
      state.anchoredAt !== null
    ) {
      const network = this.#networks.require(state.networkId);
      this.#resolve(state.id, {
        recordId: state.id,
        networkId: state.networkId,
        smartContract: contractFor(network, state.kind),
        transactionHash: state.transactionHash,
        blockNumber: state.blockNumber,
        anchoredAt: state.anchoredAt,
      });
    } else if (state.status === 'failed' || state.status === 'cancelled') {
      this.#reject(state.id, new AnchorFailedError(state.id, state.error ?? state.status));
    } else if (state.status === 'queued') {
      // Not sent, and nothing will be sent on that network until its registrar is funded.
      const notReady = this.#notReady(state.networkId);
      if (notReady) this.#reject(state.id, notReady);
    }
  }

  #resolve(recordId: number, receipt: AnchorReceipt): void {
    for (const waiter of this.#waiters.get(recordId) ?? []) waiter.resolve(receipt);
    this.#waiters.delete(recordId);
  }

  #reject(recordId: number, error: Error): void {
    for (const waiter of this.#waiters.get(recordId) ?? []) waiter.reject(error);
    this.#waiters.delete(recordId);
  }
}
