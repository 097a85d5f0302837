/**
 * A loop that runs a step, then waits the delay the step asks for (or until woken); a failing
 * step is retried after the delay `onFailure` gives for its consecutive attempt number.
 */
export class StepLoop {
  #running = false;
  #done: Promise<void> | undefined;
  #wake: (() => void) | undefined;

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
    this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
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
