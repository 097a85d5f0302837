import { ServiceBusyError } from './service-busy.js';

export interface ConcurrencyLimitOptions {
  /** What is limited, for the refusal's log line (e.g. `posted verifications`). */
  name: string;
  /** Tasks run at once. */
  running: number;
  /** Tasks that may wait for a turn, first come first served; one more is refused at once. */
  waiting: number;
  /** How long a task waits for its turn before it is refused (ms). */
  maxWaitMs: number;
  /** What a refusal tells the caller to wait (`Retry-After`), in seconds. */
  retryAfterSeconds: number;
}

interface Waiter {
  start: () => void;
}

/**
 * At most `running` tasks of a kind at once in this process, a few more waiting briefly, the rest
 * refused with `ServiceBusyError` (503 with `Retry-After`): costly work that anyone may ask for
 * cannot take the whole process, so what else it serves (`/healthz`, other routes) still answers.
 */
export class ConcurrencyLimit {
  readonly options: Readonly<ConcurrencyLimitOptions>;
  #running = 0;
  readonly #waiting: Waiter[] = [];

  constructor(options: ConcurrencyLimitOptions) {
    for (const key of ['running', 'waiting', 'maxWaitMs', 'retryAfterSeconds'] as const) {
      const value = options[key];
      const least = key === 'running' || key === 'retryAfterSeconds' ? 1 : 0;
      if (!Number.isSafeInteger(value) || value < least) {
        throw new RangeError(`${options.name}: ${key} must be an integer >= ${String(least)}`);
      }
    }
    this.options = Object.freeze({ ...options });
  }

  /** Tasks running now, and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /**
   * Runs `task` when a turn is free. Refused (`ServiceBusyError`, the task never started) when
   * `waiting` tasks already wait, when no turn came within `maxWaitMs`, or when `signal` aborts
   * first (the caller went away).
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#turn(signal);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #busy(why: string): ServiceBusyError {
    return new ServiceBusyError(`${this.options.name}: ${why}`, {
      retryAfterSeconds: this.options.retryAfterSeconds,
    });
  }

  #turn(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(this.#busy('the caller went away'));
    if (this.#running < this.options.running) {
      this.#running += 1;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.options.waiting) {
      return Promise.reject(
        this.#busy(`${String(this.#running)} running and ${String(this.#waiting.length)} waiting`),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (why: string) => {
        const at = this.#waiting.indexOf(waiter);
        if (at === -1) return;
        this.#waiting.splice(at, 1);
        cleanUp();
        reject(this.#busy(why));
      };
      const timer = setTimeout(() => {
        leave(`no turn within ${String(this.options.maxWaitMs)} ms`);
      }, this.options.maxWaitMs);
      const onAbort = () => {
        leave('the caller went away');
      };
      const cleanUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        start: () => {
          cleanUp();
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The turn passes straight to the next waiter: the count of running tasks stays the same.
    if (next !== undefined) next.start();
    else this.#running -= 1;
  }
}
