import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { parseInt8 } from './parse-int8.js';

/** One client session of the engine (see `PgliteThread.session`). */
export interface PgliteSession {
  query(sql: string, params?: unknown[], options?: unknown): Promise<unknown>;
  /** Gives the session up; a transaction it left open is rolled back. */
  end(): Promise<void>;
}

export interface PgliteThreadOptions {
  dataDir: string;
  startParams: readonly string[];
  /** A data directory image (from `dumpDataDir`) to start from. */
  loadDataDir?: Blob;
  /**
   * Longest a statement waits for another session's transaction before it is refused. Default
   * 60 s, knex's own wait for a connection.
   */
  sessionWaitMs?: number;
}

/**
 * V8 compiles the engine's hot WebAssembly functions again with its optimising compiler, in
 * background threads, as they become hot (mostly while the service starts and under its first
 * load). Several such compilations at once (PostgreSQL's executor holds very large functions) take
 * tens of MiB of compiler memory together, which glibc keeps once freed, scattered among what
 * stays: the embedded service at rest held 249-285 MiB resident, 80 MiB of it free heap
 * (`malloc_trim` gave it back). One compilation at a time keeps the peak, and what is kept, to one
 * function's: 221-246 MiB. Process-wide; nothing else in the service compiles WebAssembly.
 */
function compileWasmOneFunctionAtATime(): void {
  setFlagsFromString('--wasm-num-compilation-tasks=1');
}

/**
 * The engine's own thread: PGlite, its int8 parser and a loop answering the requests of
 * `PgliteThread` in order. Evaluated, not loaded from a file, so that it runs the same from the
 * built package and from its sources under test; the int8 parser is `parseInt8`'s own text.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { Session } = require('node:inspector');
const { PGlite, types } = require(workerData.engine);
const parseInt8 = ${parseInt8.toString()};
const pglite = new PGlite({
  dataDir: workerData.dataDir,
  parsers: { [types.INT8]: parseInt8 },
  startParams: workerData.startParams,
  ...(workerData.image ? { loadDataDir: new Blob([workerData.image]) } : {}),
});
// A database error carries its SQLSTATE, constraint, table...: the fields a caller reads.
const fieldsOf = (error) => {
  const fields = { message: String((error && error.message) || error) };
  if (typeof error === 'object' && error !== null) {
    for (const [key, value] of Object.entries(error)) {
      if (key === 'params' || key === 'query') continue;
      if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
    }
  }
  return fields;
};
const perform = async (request) => {
  switch (request.op) {
    case 'query':
      return pglite.query(request.sql, request.params, request.options);
    case 'end':
      // A session given up in the middle of a transaction leaves nothing of it.
      if (owner === request.session && pglite.isInTransaction()) await pglite.query('rollback');
      return undefined;
    case 'dump':
      return (await pglite.dumpDataDir('none')).arrayBuffer();
    case 'collect':
      return new Promise((resolve, reject) => {
        const session = new Session();
        session.connect();
        session.post('HeapProfiler.collectGarbage', (error) => {
          // Disconnecting inside this callback blocks the thread for good (Node.js 20): after it.
          setImmediate(() => {
            session.disconnect();
            if (error) reject(error);
            else resolve(undefined);
          });
        });
      });
    case 'close':
      if (!pglite.closed) await pglite.close();
      return undefined;
  }
};
// One engine, one PostgreSQL session, several client sessions: requests run in the order they
// came, except that while a session is inside a transaction only its own run, so that no other
// session's statement lands in it. 'dump', 'collect' and 'close' belong to no session.
const waiting = [];
let owner = null;
let running = false;
const pump = () => {
  if (running || waiting.length === 0) return;
  const index = owner === null ? 0 : waiting.findIndex((request) => request.session === owner);
  if (index < 0) return;
  const [request] = waiting.splice(index, 1);
  running = true;
  perform(request)
    .then(
      (value) => {
        const transfer = value instanceof ArrayBuffer ? [value] : [];
        parentPort.postMessage({ id: request.id, value }, transfer);
      },
      (error) => parentPort.postMessage({ id: request.id, error: fieldsOf(error) }),
    )
    .finally(() => {
      owner = !pglite.closed && pglite.isInTransaction() ? request.session : null;
      running = false;
      pump();
    });
};
pglite.waitReady.then(
  () => parentPort.postMessage({ ready: true }),
  (error) => parentPort.postMessage({ ready: false, error: fieldsOf(error) }),
);
// A statement that waits too long for another session's transaction is refused, as knex refuses a
// connection it waited too long for: a query made outside a transaction that waits for it would
// otherwise wait for ever.
setInterval(() => {
  const now = Date.now();
  for (const request of [...waiting]) {
    if (owner === null || request.session === owner || now - request.at < workerData.sessionWaitMs) continue;
    waiting.splice(waiting.indexOf(request), 1);
    const message = "waited " + workerData.sessionWaitMs + " ms for another session's transaction to end; a statement made outside a transaction that waits for it?";
    parentPort.postMessage({ id: request.id, error: { message } });
  }
}, Math.min(1000, workerData.sessionWaitMs)).unref();
parentPort.on('message', (request) => {
  waiting.push({ ...request, at: Date.now() });
  pump();
});
`;

interface ErrorFields {
  message: string;
  [field: string]: string | number;
}

type Reply =
  | { ready: true }
  | { ready: false; error: ErrorFields }
  | { id: number; value: unknown; error?: undefined }
  | { id: number; error: ErrorFields };

function errorFrom(fields: ErrorFields): Error {
  const { message, ...rest } = fields;
  return Object.assign(new Error(message), rest);
}

/**
 * PGlite on a thread of its own, serving several sessions. The engine runs each statement
 * synchronously on the thread that holds it: on the service's thread it took about half of that
 * thread under load (bench:create, 201s), and every request in flight waited for each statement.
 * On its own thread it works beside the HTTP front, on the machine's other core; with several
 * sessions, statements wait in its queue rather than for a turn of the service's thread to hand
 * the one connection on. The thread keeps the process alive only while a request is pending, like
 * a socket.
 */
export class PgliteThread {
  readonly waitReady: Promise<void>;
  #closed = false;
  #nextId = 0;
  #nextSession = 1;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(e: Error): void }>();
  readonly #worker: Worker;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.waitReady = new Promise<void>((resolve, reject) => {
      const onReply = (reply: Reply): void => {
        if ('ready' in reply) {
          if (this.#pending.size === 0) worker.unref();
          if (reply.ready) resolve();
          else reject(errorFrom(reply.error));
          return;
        }
        const pending = this.#pending.get(reply.id);
        if (pending === undefined) return;
        this.#pending.delete(reply.id);
        if (this.#pending.size === 0) worker.unref();
        if (reply.error === undefined) pending.resolve(reply.value);
        else pending.reject(errorFrom(reply.error));
      };
      worker.on('message', onReply);
      const onEnd = (error: Error): void => {
        this.#closed = true;
        reject(error);
        for (const pending of this.#pending.values()) pending.reject(error);
        this.#pending.clear();
      };
      worker.once('error', onEnd);
      worker.once('exit', (code) => {
        onEnd(new Error(`the embedded database's thread stopped (exit code ${String(code)})`));
      });
    });
  }

  static async start(options: PgliteThreadOptions): Promise<PgliteThread> {
    compileWasmOneFunctionAtATime();
    const image =
      options.loadDataDir === undefined ? undefined : await options.loadDataDir.arrayBuffer();
    const worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        engine: require.resolve('@electric-sql/pglite'),
        dataDir: options.dataDir,
        startParams: options.startParams,
        sessionWaitMs: options.sessionWaitMs ?? 60_000,
        image,
      },
      ...(image === undefined ? {} : { transferList: [image] }),
    });
    return new PgliteThread(worker);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A session of its own on the engine: what a pooled connection is on PostgreSQL. Its
   * transactions are its own; other sessions' statements wait for them to end.
   */
  session(): PgliteSession {
    const session = this.#nextSession++;
    return {
      query: (sql, params, options) => this.#send({ op: 'query', session, sql, params, options }),
      end: async () => {
        if (!this.#closed) await this.#send({ op: 'end', session });
      },
    };
  }

  /**
   * One memory-reducing collection of the engine thread's heap: what a burst of statements grew
   * goes back to the system. For a quiet moment (`releaseMemoryWhenIdle`).
   */
  async collectGarbage(): Promise<void> {
    await this.#send({ op: 'collect' });
  }

  /** The data directory as a tar image, to start another engine from. */
  async dumpDataDir(): Promise<Blob> {
    const image = (await this.#send({ op: 'dump' })) as ArrayBuffer;
    return new Blob([image]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#send({ op: 'close' }).catch(() => undefined);
    this.#closed = true;
    await this.#worker.terminate();
  }

  #send(request: Record<string, unknown>): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(new Error("the embedded database's thread is closed"));
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...request });
    });
  }
}
