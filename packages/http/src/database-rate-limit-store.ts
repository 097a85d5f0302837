import {
  countRateLimitHits,
  deleteRateLimitKey,
  deleteRateLimitWindowsBefore,
  findRateLimitHits,
  uncountRateLimitHit,
  type Queryable,
} from '@trustpoint/db';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';

/** How often a store deletes the rows of windows long gone (keys no longer seen). */
const SWEEP_EVERY_MS = 60_000;

/**
 * Counts for `rateLimit` kept in PostgreSQL (`rate_limit_counts`, an unlogged table), so every API
 * process sharing the database enforces one limit. A fixed window per key, aligned on the epoch so
 * that every process agrees on where windows start; counting a request is one upsert that answers
 * the new count (the requests of one turn of the event loop share one). `scope` keeps the limits
 * of different APIs (or routes) apart.
 */
export class DatabaseRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  readonly #db: Queryable;
  #windowMs = 60_000;
  readonly #now: () => number;
  #nextSweep: number;
  /** Requests of this turn of the event loop, per key, not counted yet. */
  #pending:
    | {
        windowStart: number;
        keys: Map<
          string,
          { resolve: (info: ClientRateLimitInfo) => void; reject: (error: unknown) => void }[]
        >;
      }
    | undefined;

  constructor(db: Queryable, scope: string, options: { now?: () => number } = {}) {
    this.#db = db;
    this.prefix = `${scope}:`;
    this.#now = options.now ?? Date.now;
    this.#nextSweep = this.#now() + SWEEP_EVERY_MS;
  }

  init(options: Options): void {
    this.#windowMs = options.windowMs;
  }

  #windowStart(): number {
    return Math.floor(this.#now() / this.#windowMs) * this.#windowMs;
  }

  /**
   * When the window that starts at `windowStart` ends, on the wall clock express-rate-limit reads
   * (its Retry-After is this minus `Date.now()`): the same instant with the default clock.
   */
  #resetTime(windowStart: number): Date {
    return new Date(Date.now() + (windowStart + this.#windowMs - this.#now()));
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const windowStart = this.#windowStart();
    const hits = await findRateLimitHits(this.#db, this.prefix + key, windowStart);
    if (hits === undefined) return undefined;
    return { totalHits: hits, resetTime: this.#resetTime(windowStart) };
  }

  /**
   * Counts a request. The requests of one turn of the event loop are counted together: one upsert
   * for all their keys (sorted, so that processes never lock rows in opposite orders), adding each
   * key's number of requests, each request told its own place in the count. Under load a hot key
   * (one user, one address) then costs a statement per turn rather than one per request, queued
   * on its row lock.
   */
  increment(key: string): Promise<ClientRateLimitInfo> {
    const windowStart = this.#windowStart();
    return new Promise((resolve, reject) => {
      if (this.#pending === undefined || this.#pending.windowStart !== windowStart) {
        this.#flush();
        this.#pending = { windowStart, keys: new Map() };
        setImmediate(() => {
          this.#flush();
        });
      }
      const waiting = this.#pending.keys.get(key) ?? [];
      waiting.push({ resolve, reject });
      this.#pending.keys.set(key, waiting);
    });
  }

  #flush(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    const { windowStart } = pending;
    const resetTime = this.#resetTime(windowStart);
    this.#sweepNowAndThen(windowStart);
    const keys = [...pending.keys.keys()].sort();
    const counts = keys.map((key) => ({
      key: this.prefix + key,
      windowStart,
      hits: pending.keys.get(key)?.length ?? 0,
    }));
    countRateLimitHits(this.#db, counts).then(
      (totals) => {
        for (const key of keys) {
          const waiting = pending.keys.get(key) ?? [];
          const total = totals.get(this.prefix + key) ?? waiting.length;
          // The last of this turn's requests sees the total; earlier ones, their own places.
          waiting.forEach((request, index) => {
            request.resolve({ totalHits: total - waiting.length + index + 1, resetTime });
          });
        }
      },
      (error: unknown) => {
        for (const waiting of pending.keys.values()) {
          for (const request of waiting) request.reject(error);
        }
      },
    );
  }

  async decrement(key: string): Promise<void> {
    await uncountRateLimitHit(this.#db, this.prefix + key, this.#windowStart());
  }

  async resetKey(key: string): Promise<void> {
    await deleteRateLimitKey(this.#db, this.prefix + key);
  }

  /** Deletes, in the background and at most once a minute per store, rows of ended windows. */
  #sweepNowAndThen(windowStart: number): void {
    if (this.#now() < this.#nextSweep) return;
    this.#nextSweep = this.#now() + SWEEP_EVERY_MS;
    deleteRateLimitWindowsBefore(this.#db, windowStart - this.#windowMs).catch(() => {
      // Stale rows only cost space; the next sweep takes them.
    });
  }
}
