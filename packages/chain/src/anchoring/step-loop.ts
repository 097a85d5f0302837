/**
 * A loop that runs a step, then waits the delay the step asks for (or until woken); a failing
 * step is retried after the delay `onFailure` gives for its consecutive attempt number.
 */
export class StepLoop {
  #running = false;
  #done: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Woken while its step ran: the step may have looked before what woke it, so it runs again. */
  #woken = false;

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
    if (this.#wake) this.#wake();
    else this.#woken = true;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
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

/**
 * How long a loop that found nothing to do waits before its next look: `minMs` at first, twice as
 * long at each idle look after it, at most `maxMs`; back to `minMs` once it has work again.
 */
export class IdleBackoff {
  readonly #minMs: number;
  readonly #maxMs: number;
  #nextMs: number;
  #idling = false;

  constructor(minMs: number, maxMs: number) {
    this.#minMs = minMs;
    this.#maxMs = Math.max(minMs, maxMs);
    this.#nextMs = minMs;
  }

  /** Whether the last look found nothing to do. */
  get idling(): boolean {
    return this.#idling;
  }

  /** The wait after an idle look; the next one is longer. */
  idle(): number {
    this.#idling = true;
    const wait = this.#nextMs;
    this.#nextMs = Math.min(this.#maxMs, wait * 2);
    return wait;
  }

  /** The wait after a look that found work. */
  busy(): number {
    this.reset();
    return this.#minMs;
  }

  reset(): void {
    this.#idling = false;
    this.#nextMs = this.#minMs;
  }
}
