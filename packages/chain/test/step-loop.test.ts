import { describe, expect, it } from 'vitest';
import { IdleBackoff, StepLoop } from '../src/anchoring/step-loop.js';

/** A step that waits until released, so a test can act while it runs. */
function heldStep(delayMs: number) {
  let release: () => void = () => undefined;
  let runs = 0;
  let running: () => void = () => undefined;
  let started = new Promise<void>((resolve) => (running = resolve));
  const step = async () => {
    runs += 1;
    running();
    await new Promise<void>((resolve) => (release = resolve));
    return delayMs;
  };
  return {
    step,
    runs: () => runs,
    /** Resolves once the step is running; the next call waits for its next run. */
    started: async () => {
      await started;
      started = new Promise<void>((resolve) => (running = resolve));
    },
    release: () => {
      release();
    },
  };
}

const LONG_MS = 600_000;

describe('StepLoop', () => {
  it('when woken while its step runs, then the step runs again at once rather than after its delay', async () => {
    // Arrange
    const loop = new StepLoop();
    const held = heldStep(LONG_MS);
    loop.start(held.step, () => LONG_MS);
    await held.started();

    // Act: what woke it may have come after the step looked.
    loop.wake();
    held.release();
    await held.started();

    // Assert
    expect(held.runs()).toBe(2);
    const stopping = loop.stop();
    held.release();
    await stopping;
  });

  it('when stopped while its step runs, then it ends once the step ends, without waiting the delay the step asks for', async () => {
    // Arrange
    const loop = new StepLoop();
    const held = heldStep(LONG_MS);
    loop.start(held.step, () => LONG_MS);
    await held.started();

    // Act
    const stopping = loop.stop();
    held.release();
    const outcome = await Promise.race([
      stopping.then(() => 'stopped'),
      new Promise((resolve) => setTimeout(resolve, 2_000, 'still waiting')),
    ]);

    // Assert
    expect(outcome).toBe('stopped');
    expect(held.runs()).toBe(1);
  });
});

describe('IdleBackoff', () => {
  it('when looks keep finding nothing, then the wait doubles up to its bound, and one busy look brings it back', () => {
    // Arrange
    const backoff = new IdleBackoff(25, 1_000);

    // Act
    const idle = Array.from({ length: 8 }, () => backoff.idle());
    const idling = backoff.idling;
    const busy = backoff.busy();

    // Assert
    expect(idle).toEqual([25, 50, 100, 200, 400, 800, 1_000, 1_000]);
    expect(idling).toBe(true);
    expect(busy).toBe(25);
    expect(backoff.idling).toBe(false);
    expect(backoff.idle()).toBe(25);
  });
});
