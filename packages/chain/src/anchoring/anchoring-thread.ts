import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { NetworkConfig } from '../networks/network-config.js';
import { silentLogger, type AnchorLogger } from './anchor-logger.js';
import type { AnchorEngine, FailedRecord } from './anchor-engine.js';
import type { SettledReceipt } from './anchor-record.js';
import type { NetworkHealth } from './network-health.js';
import type { AnchorerTiming } from './network-anchorer.js';

/** What the anchoring thread is started with (`workerData`): plain data only. */
export interface AnchoringThreadData {
  databaseUrl: string;
  /** Schema to work in, when not the default one. */
  schema?: string | undefined;
  networks: readonly NetworkConfig[];
  /** Connections of the thread's own pool. */
  poolMax: number;
  /** pino level of the thread's log lines. */
  logLevel: string;
  /** The anchorers' timing, where it is not the default. */
  timing?: Partial<AnchorerTiming> | undefined;
}

/** What the anchoring thread tells the thread that started it. */
export type AnchoringThreadMessage =
  | { kind: 'ready' }
  | { kind: 'anchored'; receipts: SettledReceipt[] }
  | { kind: 'failed'; records: FailedRecord[] }
  | { kind: 'health'; health: NetworkHealth }
  | { kind: 'stopped' };

export interface AnchoringThreadOptions {
  databaseUrl: string;
  schema?: string | undefined;
  networks: readonly NetworkConfig[];
  /** Default 4. */
  poolMax?: number;
  /** Default `info`. */
  logLevel?: string;
  /** The anchorers' timing, where it is not the default (`DEFAULT_ANCHORER_TIMING`). */
  timing?: Partial<AnchorerTiming>;
  logger?: AnchorLogger;
  /** Wait before starting the thread again after it crashed. Default 1 s. */
  restartDelayMs?: number;
}

export interface AnchoringThread {
  /** Stops its anchorers (batches on their way are settled or left for the next start). */
  stop(): Promise<void>;
}

/**
 * Runs the anchorers of every network in a worker thread of their own, with their own database
 * pool, on PostgreSQL: signing, encoding and settling batches then use the machine's other core
 * instead of the thread that serves requests. `engine` is the requests' engine, built with
 * `anchoring: false`: it is told of each settled record at once, and still looks at the database
 * on its own, so nothing is lost if a message is (the thread crashed between settling and
 * telling). A thread that crashes is started again; the queue and the pending batches it left are
 * in the database, and it resumes them as after a crash of the whole process.
 */
export async function startAnchoringThread(
  engine: AnchorEngine,
  options: AnchoringThreadOptions,
): Promise<AnchoringThread> {
  const logger = options.logger ?? silentLogger;
  const data: AnchoringThreadData = {
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    networks: options.networks,
    poolMax: options.poolMax ?? 4,
    logLevel: options.logLevel ?? 'info',
    timing: options.timing,
  };
  let stopping = false;
  let worker: Worker | undefined;
  let restart: NodeJS.Timeout | undefined;

  // Resolves once the thread is anchoring; rejects if it ends before that.
  const spawn = () =>
    new Promise<void>((resolve, reject) => {
      const started = new Worker(join(__dirname, 'anchoring-thread-worker.js'), {
        workerData: data,
      });
      let ready = false;
      worker = started;
      started.on('message', (message: AnchoringThreadMessage) => {
        if (message.kind === 'ready') {
          ready = true;
          resolve();
        } else if (message.kind === 'anchored') engine.resolveAnchored(message.receipts);
        else if (message.kind === 'failed') engine.rejectFailed(message.records);
        else if (message.kind === 'health') engine.reportHealth(message.health);
      });
      let failure: Error | undefined;
      started.once('error', (error) => {
        failure = error;
      });
      started.once('exit', (code) => {
        if (worker === started) worker = undefined;
        if (!ready) {
          reject(failure ?? new Error(`anchoring thread exited with code ${String(code)}`));
          return;
        }
        if (stopping) return;
        // Only a thread that once ran is started again: one that cannot start fails the caller.
        logger.error(
          { err: String(failure ?? `exit code ${String(code)}`) },
          'anchoring thread ended; starting it again',
        );
        const again = () => {
          restart = undefined;
          if (stopping) return;
          spawn().catch((error: unknown) => {
            logger.error({ err: String(error) }, 'anchoring thread did not start again; retrying');
            restart = setTimeout(again, options.restartDelayMs ?? 1_000);
          });
        };
        restart = setTimeout(again, options.restartDelayMs ?? 1_000);
      });
    });

  await spawn();
  // Records the requests' engine queued: the thread's anchorers look at once, not at their next
  // idle look.
  const unobserve = engine.observe({
    queued: () => {
      worker?.postMessage('wake');
    },
  });
  return {
    async stop() {
      stopping = true;
      unobserve();
      clearTimeout(restart);
      const current = worker;
      if (current === undefined) return;
      const stopped = new Promise<void>((resolve) => {
        current.on('message', (message: AnchoringThreadMessage) => {
          if (message.kind === 'stopped') resolve();
        });
        current.once('exit', () => {
          resolve();
        });
      });
      current.postMessage('stop');
      await stopped;
      await current.terminate();
    },
  };
}
