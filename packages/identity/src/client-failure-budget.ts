/** A key's failures in the current window. */
interface Count {
  windowStart: number;
  failures: number;
}

/** Entries kept before the windows that are over are swept out. */
const SWEEP_ABOVE = 10_000;

/**
 * Failed token requests counted per key (a client address, a client id) in fixed windows in
 * process memory. A key is exhausted once it has `limit` failures in the window; the window's end
 * says when it recovers. Exhaustion never refuses by itself: the token endpoint still grants a
 * valid credential, so that nobody's failures (another client behind the same address, a guesser
 * naming someone's client id) lock a valid client out.
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

  #windowStart(): number {
    return Math.floor(this.#now() / this.#windowMs) * this.#windowMs;
  }

  /** Seconds until the first exhausted key of `keys` recovers; undefined when none is exhausted. */
  exhausted(keys: readonly string[]): number | undefined {
    const windowStart = this.#windowStart();
    const spent = keys.some((key) => {
      const count = this.#counts.get(key);
      return count?.windowStart === windowStart && count.failures >= this.#limit;
    });
    if (!spent) return undefined;
    return Math.max(1, Math.ceil((windowStart + this.#windowMs - this.#now()) / 1_000));
  }

  /** Counts one failure against each of `keys`. */
  recordFailure(keys: readonly string[]): void {
    const windowStart = this.#windowStart();
    if (this.#counts.size > SWEEP_ABOVE) {
      for (const [key, count] of this.#counts) {
        if (count.windowStart !== windowStart) this.#counts.delete(key);
      }
    }
    for (const key of keys) {
      const count = this.#counts.get(key);
      if (count?.windowStart === windowStart) count.failures += 1;
      else this.#counts.set(key, { windowStart, failures: 1 });
    }
  }
}
