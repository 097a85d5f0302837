// Gives the JavaScript heap back to the system once the process goes quiet. V8 keeps the heap it
// grew while busy (the start's compilation and migrations, a burst of requests): its new space
// stays at 32 MiB and its old space holds the garbage of the start until the next collection,
// which an idle process never triggers. A memory-reducing collection (what DevTools' "collect
// garbage" runs) returns it: the embedded service at idle went from 280-301 to 250-254 MiB.
import { Session } from 'node:inspector';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Logger } from 'pino';

export interface IdleMemoryOptions {
  logger: Logger;
  /** How often the event loop's use is looked at; a quiet interval of this length counts as idle. */
  checkMs?: number;
  /** The share of an interval the event loop may be busy and still count as idle. */
  idleUtilization?: number;
  /** How far the committed heap must have grown since the last collection to be worth one. */
  minGrowthBytes?: number;
  /**
   * Collects another thread's heap at the same moments (the embedded database's engine); undefined
   * where there is none.
   */
  alsoRelease?: () => Promise<void> | undefined;
}

export interface IdleMemory {
  stop(): void;
}

const MIB = 1024 * 1024;

/** One memory-reducing collection of this thread's heap. */
function collectGarbage(): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = new Session();
    session.connect();
    session.post('HeapProfiler.collectGarbage', (error) => {
      // Disconnecting inside this callback blocks the thread for good (Node.js 20): after it.
      setImmediate(() => {
        session.disconnect();
        if (error === null) resolve();
        else reject(error);
      });
    });
  });
}

/**
 * Collects the heap once whenever the event loop has been quiet for an interval and the committed
 * heap has grown by `minGrowthBytes` since the last collection: once after the start, once after
 * each busy spell, never while requests keep the loop busy.
 */
export function releaseMemoryWhenIdle(options: IdleMemoryOptions): IdleMemory {
  const { logger, checkMs = 10_000, idleUtilization = 0.05, minGrowthBytes = 16 * MIB } = options;
  let baseline = 0;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let collecting = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    const before = process.memoryUsage().heapTotal;
    if (collecting || utilization > idleUtilization || before - baseline < minGrowthBytes) return;
    collecting = true;
    Promise.all([collectGarbage(), options.alsoRelease?.()]).then(
      () => {
        collecting = false;
        baseline = process.memoryUsage().heapTotal;
        logger.debug(
          { heapBeforeMiB: Math.round(before / MIB), heapAfterMiB: Math.round(baseline / MIB) },
          'idle: the JavaScript heap was collected and given back',
        );
      },
      (error: unknown) => {
        // Without an inspector (a Node.js built without it) there is nothing to give back with.
        logger.debug({ err: error }, 'idle: the heap could not be collected; not trying again');
        clearInterval(timer);
      },
    );
  }, checkMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
    },
  };
}
