import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { releaseMemoryWhenIdle } from '../src/idle-memory.js';

interface Release {
  heapBeforeMiB: number;
  heapAfterMiB: number;
}

/** A debug logger whose releases the test reads. */
function recordingLogger() {
  const releases: Release[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as Partial<Release> & { msg: string };
      if (line.heapBeforeMiB !== undefined && line.heapAfterMiB !== undefined) {
        releases.push({ heapBeforeMiB: line.heapBeforeMiB, heapAfterMiB: line.heapAfterMiB });
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), releases };
}

/** Grows the heap with short-lived objects, as a burst of requests does, and lets them go. */
function allocateAndDrop(): void {
  let kept: { index: number; text: string }[] = [];
  for (let index = 0; index < 400_000; index += 1) kept.push({ index, text: `item ${index}` });
  kept = [];
  expect(kept).toHaveLength(0);
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

describe('releaseMemoryWhenIdle', () => {
  it('when the heap has grown and the process goes quiet, then it is collected once, smaller, and the thread goes on running', async () => {
    // Arrange
    allocateAndDrop();
    const { logger, releases } = recordingLogger();

    // Act (the first collection needs no growth; another would need 16 MiB more)
    let alsoReleased = 0;
    const idle = releaseMemoryWhenIdle({
      logger,
      checkMs: 100,
      alsoRelease: () => {
        alsoReleased += 1;
        return Promise.resolve();
      },
    });
    try {
      await expect.poll(() => releases.length, { timeout: 10_000 }).toBeGreaterThan(0);
      // Timers still fire after it (a collection that blocked the thread would end the test here).
      await sleep(500);
    } finally {
      idle.stop();
    }

    // Assert: collected once (the heap has not grown 16 MiB since), and smaller after it.
    expect(releases).toHaveLength(1);
    // The embedded database's thread is collected at the same moment, once.
    expect(alsoReleased).toBe(1);
    const [release] = releases;
    expect(release?.heapAfterMiB).toBeLessThan(release?.heapBeforeMiB ?? 0);
  });

  it('when the event loop stays busy, then nothing is collected', async () => {
    // Arrange
    allocateAndDrop();
    const { logger, releases } = recordingLogger();
    const idle = releaseMemoryWhenIdle({ logger, checkMs: 100, minGrowthBytes: 1 });

    // Act: the loop busy 90% of the time for 1.5 s.
    const until = Date.now() + 1_500;
    try {
      while (Date.now() < until) {
        const busyUntil = Date.now() + 45;
        while (Date.now() < busyUntil) {
          // busy, as a thread serving requests is
        }
        await sleep(5);
      }
    } finally {
      idle.stop();
    }

    // Assert
    expect(releases).toEqual([]);
  });
});
