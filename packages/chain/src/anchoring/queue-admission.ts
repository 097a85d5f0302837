import { countPendingAnchorRecords } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { NetworkRegistry } from '../networks/network-registry.js';
import { queueCapacity, type QueueCapacity } from '../networks/queue-capacity.js';
import type { AnchorLogger } from './anchor-logger.js';

const REFUSAL_LOG_EVERY_MS = 60_000;
/** Counts a refusal waits for at most before it is answered. */
const CONFIRMING_READS = 3;

/** Room held on a network's queue by one request, from its admission until its store ends. */
export interface Admission {
  /**
   * Runs `store` (the transaction that queues the records) holding the room, and gives it back
   * once the store commits, rolls back or throws before it starts; what `store` gives.
   */
  during<T>(store: () => Promise<T>): Promise<T>;
}

export interface QueueAdmissionOptions {
  /** Least time between two reads of a network's queue depth. Default 250 ms. */
  readEveryMs?: number;
  logger: AnchorLogger;
}

/** What this process knows of one network's queue. */
interface QueueView {
  capacity: QueueCapacity;
  /** Pending records at the last read (at most the limit + 1), and when that read started. */
  counted: number;
  countedAt: number;
  /**
   * No read before this: three times the last read's duration after it ended, so that counting a
   * long queue (80,000 rows: about 30 ms on PostgreSQL, 80-100 ms on PGlite, whose one engine
   * the requests share) takes at most a quarter of the database's time.
   */
  nextReadAt: number;
  /** Records whose store ended (committed or not) since the last read started: maybe not counted. */
  sinceRead: number;
  /** The part of `sinceRead` since the running read started, which that read may not see. */
  sinceReading: number;
  /** Records admitted whose store has not ended: not in the database for any read yet. */
  holding: number;
  reading: Promise<void> | undefined;
  /** Refusals since the last line logged about them, and when that was. */
  refused: number;
  refusalLoggedAt: number;
}

/**
 * The queue limit of each network, as one process holds it: creations are admitted against this
 * process's view of the queue (one bounded count per network at most every `readEveryMs`, while
 * creations come) plus every record it admitted since that read started, so that a burst is
 * refused before anything is stored. Admission is decided and recorded in one turn of the event
 * loop, so concurrent requests of a process never take the queue past the limit; a refusal is
 * decided on a count started after it came up, so a queue that drained is not refused for what
 * this process had assumed still pending.
 * Records other processes queue are seen at this process's next read: with several creating
 * processes, the queue can pass the limit by what the others admit within one read interval.
 */
export class QueueAdmission {
  readonly #knex: Knex;
  readonly #networks: NetworkRegistry;
  readonly #readEveryMs: number;
  /** A view older than this is read again before it refuses or admits anything. */
  readonly #staleAfterMs: number;
  readonly #logger: AnchorLogger;
  readonly #views = new Map<string, QueueView>();

  constructor(knex: Knex, networks: NetworkRegistry, options: QueueAdmissionOptions) {
    this.#knex = knex;
    this.#networks = networks;
    this.#readEveryMs = options.readEveryMs ?? 250;
    this.#staleAfterMs = Math.max(1_000, 4 * this.#readEveryMs);
    this.#logger = options.logger;
  }

  /**
   * Admits `records` more records on the network's queue, or fails with `networkBusy` (503, with
   * the seconds the chain takes to drain the queue back under the limit as `Retry-After`).
   */
  async admit(networkId: string, records: number): Promise<Admission> {
    const view = this.#view(networkId);
    const now = Date.now();
    const due = now - view.countedAt >= this.#readEveryMs && now >= view.nextReadAt;
    if (due && view.reading === undefined) this.#read(networkId, view).catch(() => undefined);
    // A view from before a quiet spell says nothing of the queue now: wait for the read.
    if (now - view.countedAt > this.#staleAfterMs) await view.reading;
    // Nor is a refusal decided on what this process assumed: records it stored since the last
    // count may have been anchored, and the count may be older than the queue's last drain. A
    // refusal waits for a count (the running one, or the next one the read spacing allows), and
    // for another while that count raced stores whose records it may already hold.
    for (let reads = 0; !this.#fits(view, records) && reads < CONFIRMING_READS; reads += 1) {
      if (reads > 0 && view.sinceRead === 0) break;
      await this.#readSoon(networkId, view).catch(() => undefined);
    }
    // From here to the end, one turn of the event loop: no other admission comes in between.
    const { maxQueuedRecords, recordsPerSecond } = view.capacity;
    const pending = this.#pending(view);
    if (pending + records > maxQueuedRecords) {
      // Under a long overload the queue fills and drains a batch at a time: one line a minute.
      view.refused += 1;
      const at = Date.now();
      if (at - view.refusalLoggedAt >= REFUSAL_LOG_EVERY_MS) {
        this.#logger.warn(
          { networkId, pending, maxQueuedRecords, refused: view.refused },
          'anchoring queue full: creations on this network are refused (503) until it drains',
        );
        view.refusalLoggedAt = at;
        view.refused = 0;
      }
      const excess = pending + records - maxQueuedRecords;
      throw new DomainError('networkBusy', {
        detail: `network ${networkId} has ${String(pending)} records pending, limit ${String(maxQueuedRecords)}`,
        retryAfterSeconds: Math.max(1, Math.ceil(excess / recordsPerSecond)),
      });
    }
    view.holding += records;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      view.holding -= records;
      view.sinceRead += records;
      if (view.reading !== undefined) view.sinceReading += records;
    };
    return {
      async during(store) {
        try {
          return await store();
        } finally {
          release();
        }
      },
    };
  }

  /** Records pending on the network as far as this process knows. */
  #pending(view: QueueView): number {
    return view.counted + view.sinceRead + view.holding;
  }

  #fits(view: QueueView, records: number): boolean {
    return this.#pending(view) + records <= view.capacity.maxQueuedRecords;
  }

  /** The limit and drain rate admission uses for a network. */
  capacityOf(networkId: string): QueueCapacity {
    return this.#view(networkId).capacity;
  }

  #view(networkId: string): QueueView {
    let view = this.#views.get(networkId);
    if (view === undefined) {
      const network = this.#networks.require(networkId);
      view = {
        capacity: network.queue ?? queueCapacity({ anchorTimeoutMs: network.anchorTimeoutMs }),
        counted: 0,
        countedAt: Number.NEGATIVE_INFINITY,
        nextReadAt: Number.NEGATIVE_INFINITY,
        sinceRead: 0,
        sinceReading: 0,
        holding: 0,
        reading: undefined,
        refused: 0,
        refusalLoggedAt: Number.NEGATIVE_INFINITY,
      };
      this.#views.set(networkId, view);
    }
    return view;
  }

  /** The running count, or one started as soon as the spacing of reads allows. */
  #readSoon(networkId: string, view: QueueView): Promise<void> {
    return view.reading ?? this.#read(networkId, view, view.nextReadAt);
  }

  /**
   * Counts the network's pending records (up to the limit + 1), starting no sooner than
   * `notBefore`; the view is kept on a failure.
   */
  #read(networkId: string, view: QueueView, notBefore = Number.NEGATIVE_INFINITY): Promise<void> {
    const reading = async (): Promise<void> => {
      const wait = notBefore - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      // Stores that end from here on may or may not be in the count: kept as `sinceReading`.
      const startedAt = Date.now();
      view.sinceReading = 0;
      try {
        const counted = await countPendingAnchorRecords(
          this.#knex,
          networkId,
          view.capacity.maxQueuedRecords + 1,
        );
        // Stores that ended before the read started are in its count; later ones may not be.
        view.counted = counted;
        view.countedAt = startedAt;
        view.sinceRead = view.sinceReading;
      } catch (error) {
        this.#logger.warn({ networkId, err: String(error) }, 'could not read the anchoring queue');
        throw error;
      } finally {
        view.reading = undefined;
        const endedAt = Date.now();
        view.nextReadAt = endedAt + 3 * (endedAt - startedAt);
      }
    };
    view.reading = reading();
    return view.reading;
  }
}
