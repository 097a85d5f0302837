// Load for the asynchronous benchmarks: clients in worker threads (as in `http-load.ts`) that
// send creations with `Prefer: respond-async` for a bounded time, each waiting for its record to
// be anchored before sending the next, as a client that needs the anchoring would. The runner
// tells them what is anchored: it watches the database, so that learning it costs the service no
// request per record (polling every Location would load the service being measured).
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LoadBody, LoadTarget } from './http-load.js';

export interface AsyncLoadOptions {
  /** Client i sends its requests to target i mod n. */
  targets: LoadTarget[];
  body: LoadBody;
  /** Concurrent clients in all, spread over the threads. */
  clients: number;
  threads: number;
  /** How long clients send new requests; those sent still wait for their records after it. */
  durationMs: number;
  /**
   * Whether a client waits for its record to be anchored before it sends the next; default true.
   * Without it, each client sends its next creation as soon as the last is answered, and the
   * service gets more than the chain takes (the backpressure benchmark).
   */
  waitForAnchoring?: boolean;
  /**
   * Open loop: requests sent at this rate in all (per second, spread evenly over the threads),
   * each on a connection of the `clients` that is free, whatever the earlier answers; a request
   * due when every connection is busy is not sent and counted (`unsent`). Clients of a real
   * network arrive independently, not in step with the blocks that anchor their records.
   */
  ratePerSecond?: number;
}

/** One request: when it was sent (ms since the epoch), its answer, and the record's id. */
export interface SentRequest {
  sentAt: number;
  /** Time to the answer, in microseconds. */
  answerMicros: number;
  status: number;
  /** The certificate's certID when accepted (202). */
  id?: string;
}

/** What the worker is given (`workerData`). */
export interface AsyncLoadWorkerData {
  targets: LoadTarget[];
  body: LoadBody;
  clients: number;
  /** Offset of this thread's clients in the target list. */
  firstClient: number;
  durationMs: number;
  /** Int32 counters shared by every thread: [accepted (202), other answers]. */
  counters: SharedArrayBuffer;
  waitForAnchoring: boolean;
  /** This thread's share of an open-loop rate (requests per second), when the load has one. */
  ratePerSecond?: number;
}

export type AsyncLoadMessage =
  | { kind: 'go' }
  | { kind: 'anchored'; ids: string[] }
  /** Stop waiting for records: the runner gave up on the ones not anchored yet. */
  | { kind: 'release' };

export type AsyncLoadWorkerMessage = { kind: 'ready' } | { kind: 'done'; requests: SentRequest[] };

/** Shared counter slots. */
export const ACCEPTED = 0;
export const REFUSED = 1;
/** Open loop: requests due while every connection was busy, not sent. */
export const UNSENT = 2;

export interface AsyncLoad {
  /** Requests answered 202 so far, in every thread. */
  accepted(): number;
  /** Requests answered otherwise so far. */
  refused(): number;
  /** Open loop: requests due while every connection was busy, not sent. */
  unsent(): number;
  /** Tells the waiting clients that these records are anchored. */
  anchored(ids: string[]): void;
  /** Ends every client's wait; `done` then resolves. */
  release(): void;
  /** Every request sent, once every client ended. */
  done: Promise<SentRequest[]>;
}

/** Starts the worker threads and, once all are loaded, the clients. */
export async function startAsyncLoad(options: AsyncLoadOptions): Promise<AsyncLoad> {
  const counters = new SharedArrayBuffer(12);
  const view = new Int32Array(counters);
  const threads = Math.max(1, Math.min(options.threads, options.clients));
  let firstClient = 0;
  const workers = Array.from({ length: threads }, (_, thread) => {
    const clients =
      Math.floor(options.clients / threads) + (thread < options.clients % threads ? 1 : 0);
    const data: AsyncLoadWorkerData = {
      targets: options.targets,
      body: options.body,
      clients,
      firstClient,
      durationMs: options.durationMs,
      counters,
      waitForAnchoring: options.waitForAnchoring ?? true,
      ...(options.ratePerSecond === undefined
        ? {}
        : { ratePerSecond: (options.ratePerSecond * clients) / options.clients }),
    };
    firstClient += clients;
    return new Worker(join(__dirname, 'async-load-worker.js'), { workerData: data });
  });
  const message = (worker: Worker, kind: AsyncLoadWorkerMessage['kind']) =>
    new Promise<AsyncLoadWorkerMessage>((resolve, reject) => {
      const onMessage = (received: AsyncLoadWorkerMessage) => {
        if (received.kind !== kind) return;
        worker.off('message', onMessage);
        resolve(received);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const post = (sent: AsyncLoadMessage) => {
    for (const worker of workers) worker.postMessage(sent);
  };
  await Promise.all(workers.map((worker) => message(worker, 'ready')));
  const finished = workers.map((worker) => message(worker, 'done'));
  post({ kind: 'go' });
  const done = Promise.all(finished)
    .then((results) => results.flatMap((result) => (result.kind === 'done' ? result.requests : [])))
    .finally(() => Promise.all(workers.map((worker) => worker.terminate())));
  return {
    accepted: () => Atomics.load(view, ACCEPTED),
    refused: () => Atomics.load(view, REFUSED),
    unsent: () => Atomics.load(view, UNSENT),
    anchored(ids) {
      if (ids.length > 0) post({ kind: 'anchored', ids });
    },
    release() {
      post({ kind: 'release' });
    },
    done,
  };
}
