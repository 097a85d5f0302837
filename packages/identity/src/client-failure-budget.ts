/** A key's failures in its window, which started at its first failure. */
interface Count {
  windowStart: number;
  failures: number;
}

/** Entries kept before the windows that are over are swept out. */
const SWEEP_ABOVE = 10_000;

/**
 * Failed token requests counted per key (a client address, a client id) in process memory, each
 * key in a window of its own that starts at its first failure (not at a minute of the clock, so
 * that failures just before and just after a minute's end count together). A key is exhausted
 * once it has `limit` failures in its window; the window's end says when it recovers. Exhaustion
 * never refuses by itself: the token endpoint still grants a valid credential, so that nobody's
 * failures (another client behind the same address, a guesser naming someone's client id) lock a
 * valid client out.
 */
export class ClientFailureBudget {
  readonly #counts = new Map<string, Count>();
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(options: { limit: number; windowMs: number; now?: () => number }) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** The key's count, if its window has not ended at `now`. */
  #current(key: string, now: number): Count | undefined {
    const count = this.#counts.get(key);
    return count !== undefined && now < count.windowStart + this.#windowMs ? count : undefined;
  }

  /** Seconds until every exhausted key of `keys` has recovered; undefined when none is exhausted. */
  exhausted(keys: readonly string[]): number | undefined {
    const now = this.#now();
    let recoversAt: number | undefined;
    for (const key of keys) {
      const count = this.#current(key, now);
      if (count === undefined || count.failures < this.#limit) continue;
      recoversAt = Math.max(recoversAt ?? 0, count.windowStart + this.#windowMs);
    }
    if (recoversAt === undefined) return undefined;
    return Math.max(1, Math.ceil((recoversAt - now) / 1_000));
  }

  /** Counts one failure against each of `keys`. */
  recordFailure(keys: readonly string[]): void {
    const now = this.#now();
    if (this.#counts.size > SWEEP_ABOVE) {
      for (const [key, count] of this.#counts) {
        if (now >= count.windowStart + this.#windowMs) this.#counts.delete(key);
      }
    }
    for (const key of keys) {
      const count = this.#current(key, now);
      if (count === undefined) this.#counts.set(key, { windowStart: now, failures: 1 });
      else count.failures += 1;
    }
  }
}
