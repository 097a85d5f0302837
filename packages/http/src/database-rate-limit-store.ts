import type { Queryable } from '@trustpoint/db';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';

/** How often a store deletes the rows of windows long gone (keys no longer seen). */
const SWEEP_EVERY_MS = 60_000;

/**
 * Counts for `rateLimit` kept in PostgreSQL (`rate_limit_counts`, an unlogged table), so every API
 * process sharing the database enforces one limit. A fixed window per key, aligned on the epoch so
 * that every process agrees on where windows start; counting a request is one upsert that answers
 * the new count. `scope` keeps the limits of different APIs (or routes) apart.
 */
export class DatabaseRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  readonly #db: Queryable;
  #windowMs = 60_000;
  readonly #now: () => number;
  #nextSweep: number;

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

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const windowStart = this.#windowStart();
    const row = await this.#db('rate_limit_counts')
      .where({ key: this.prefix + key, window_start: windowStart })
      .first<{ hits: number } | undefined>('hits');
    if (row === undefined) return undefined;
    return { totalHits: row.hits, resetTime: new Date(windowStart + this.#windowMs) };
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const windowStart = this.#windowStart();
    this.#sweepNowAndThen(windowStart);
    const result = await this.#db.raw<{ rows: { hits: number }[] }>(
      `insert into rate_limit_counts as counted (key, window_start, hits) values (?, ?, 1)
       on conflict (key) do update set
         hits = case when counted.window_start = excluded.window_start then counted.hits + 1 else 1 end,
         window_start = excluded.window_start
       returning hits`,
      [this.prefix + key, windowStart],
    );
    return {
      totalHits: result.rows[0]?.hits ?? 1,
      resetTime: new Date(windowStart + this.#windowMs),
    };
  }

  async decrement(key: string): Promise<void> {
    await this.#db('rate_limit_counts')
      .where({ key: this.prefix + key, window_start: this.#windowStart() })
      .where('hits', '>', 0)
      .decrement('hits', 1);
  }

  async resetKey(key: string): Promise<void> {
    await this.#db('rate_limit_counts')
      .where({ key: this.prefix + key })
      .delete();
  }

  /** Deletes, in the background and at most once a minute per store, rows of ended windows. */
  #sweepNowAndThen(windowStart: number): void {
    if (this.#now() < this.#nextSweep) return;
    this.#nextSweep = this.#now() + SWEEP_EVERY_MS;
    this.#db('rate_limit_counts')
      .where('window_start', '<', windowStart - this.#windowMs)
      .delete()
      .catch(() => {
        // Stale rows only cost space; the next sweep takes them.
      });
  }
}
