// Load for the HTTP benchmarks, sent from worker threads: the client's JSON, sockets and
// bookkeeping then run on other event loops than the service's, which keeps the main thread
// (where the launcher runs the service) for the service alone.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { latencyHistogram } from './latency.js';

/** What a request's body is: built afresh for each request in the worker. */
export type LoadBody = 'content-certificate' | 'evidence';

export interface LoadTarget {
  url: string;
  token: string;
}

export interface LoadOptions {
  /** Request i goes to target i mod n. */
  targets: LoadTarget[];
  body: LoadBody;
  count: number;
  /** Concurrent requests in all, spread over the threads. */
  clients: number;
  threads: number;
  /** Extra request headers, e.g. `prefer: respond-async` for answers at once (202). */
  headers?: Record<string, string>;
  /** Each request with an `Idempotency-Key` of its own, as a careful integrator sends. */
  idempotencyKeys?: boolean;
}

/** One answered request, as much of it as the benchmarks report. */
export interface LoadResponse {
  target: number;
  status: number;
  transactionHash?: string;
  timestamp?: number;
}

export interface LoadOutcome {
  seconds: number;
  statuses: Map<number, number>;
  latencies: ReturnType<typeof latencyHistogram>;
  responses: LoadResponse[];
}

/** What the worker is given (`workerData`). */
export interface LoadWorkerData {
  targets: LoadTarget[];
  body: LoadBody;
  count: number;
  clients: number;
  headers: Record<string, string>;
  idempotencyKeys: boolean;
  /** One Int32: the index of the next request, shared by every thread. */
  next: SharedArrayBuffer;
}

/** What the worker posts: `ready` once loaded, then its results after `go`. */
export type LoadWorkerMessage =
  { kind: 'ready' } | { kind: 'done'; latenciesMicros: Float64Array; responses: LoadResponse[] };

/** How many threads the client uses: BENCH_CLIENT_THREADS, 1 by default (this VM has 2 CPUs). */
export function clientThreads(): number {
  return Math.max(1, Number(process.env.BENCH_CLIENT_THREADS ?? '1'));
}

/** The client as the benchmarks' headers describe it. */
export function describeClient(clients: number, threads: number): string {
  return `${String(clients)} concurrent keep-alive clients in ${String(threads)} worker thread${threads === 1 ? '' : 's'}, the service alone on the main thread`;
}

/** Sends `count` requests from `clients` concurrent clients over the worker threads. */
export async function runHttpLoad(options: LoadOptions): Promise<LoadOutcome> {
  const next = new SharedArrayBuffer(4);
  const threads = Math.max(1, Math.min(options.threads, options.clients));
  const workers = Array.from({ length: threads }, (_, thread) => {
    // The first threads take one client more when they do not divide evenly.
    const clients =
      Math.floor(options.clients / threads) + (thread < options.clients % threads ? 1 : 0);
    const data: LoadWorkerData = {
      targets: options.targets,
      body: options.body,
      count: options.count,
      clients,
      headers: options.headers ?? {},
      idempotencyKeys: options.idempotencyKeys ?? false,
      next,
    };
    return new Worker(join(__dirname, 'http-load-worker.js'), { workerData: data });
  });
  const message = (worker: Worker, kind: LoadWorkerMessage['kind']) =>
    new Promise<LoadWorkerMessage>((resolve, reject) => {
      const onMessage = (received: LoadWorkerMessage) => {
        if (received.kind !== kind) return;
        worker.off('message', onMessage);
        resolve(received);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  try {
    await Promise.all(workers.map((worker) => message(worker, 'ready')));
    const finished = workers.map((worker) => message(worker, 'done'));
    const started = performance.now();
    for (const worker of workers) worker.postMessage('go');
    const results = await Promise.all(finished);
    const seconds = (performance.now() - started) / 1_000;

    const statuses = new Map<number, number>();
    const latencies = latencyHistogram();
    const responses: LoadResponse[] = [];
    for (const result of results) {
      if (result.kind !== 'done') continue;
      for (const micros of result.latenciesMicros) latencies.recordValue(micros);
      for (const response of result.responses) {
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        responses.push(response);
      }
    }
    return { seconds, statuses, latencies, responses };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
