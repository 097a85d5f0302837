/** What the batch function says of one item: its result, or why that item alone failed. */
export type ItemOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface BatcherOptions {
  /** Most items handed to one run. Default 200. */
  maxBatch?: number;
  /** Runs allowed at once; items arriving meanwhile wait for the next run. Default 2. */
  maxRuns?: number;
}

interface Pending<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs the database work of concurrent requests together (group commit): items submitted while
 * earlier runs are busy are handed to the next run at once, so that one query or transaction
 * (a few round trips, one commit) serves many requests. An item waits for the next turn of the event loop at most, so a lone
 * request is not delayed; under load batches grow by themselves, up to `maxBatch`.
 *
 * `run` answers every item it was given, in order, each with its own outcome; when `run` itself
 * throws, every item of that run fails with the same error.
 */
export class Batcher<T, R> {
  readonly #run: (items: T[]) => Promise<ItemOutcome<R>[]>;
  readonly #maxBatch: number;
  readonly #maxRuns: number;
  #pending: Pending<T, R>[] = [];
  #running = 0;
  #scheduled = false;

  constructor(run: (items: T[]) => Promise<ItemOutcome<R>[]>, options: BatcherOptions = {}) {
    this.#run = run;
    this.#maxBatch = options.maxBatch ?? 200;
    this.#maxRuns = options.maxRuns ?? 2;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#running >= this.#maxRuns || this.#pending.length === 0) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: requests read in the same turn of the loop join one run.
    setImmediate(() => {
      this.#scheduled = false;
      this.#start();
    });
  }

  #start(): void {
    while (this.#running < this.#maxRuns && this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#maxBatch);
      this.#running += 1;
      void this.#execute(batch).finally(() => {
        this.#running -= 1;
        this.#schedule();
      });
    }
  }

  async #execute(batch: Pending<T, R>[]): Promise<void> {
    let outcomes: ItemOutcome<R>[];
    try {
      outcomes = await this.#run(batch.map((pending) => pending.item));
      if (outcomes.length !== batch.length) {
        throw new Error(
          `batch run answered ${String(outcomes.length)} of ${String(batch.length)} items`,
        );
      }
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index] as ItemOutcome<R>;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }
}

/**
 * Lookups by key for a server's requests: the keys asked for while a query runs are answered
 * together by the next one. One query at a time, so that under load a query serves many requests
 * instead of many small queries racing each other. Undefined for a key `findMany` does not return.
 */
export function batchedLookup<K, V>(
  findMany: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
): (key: K) => Promise<V | undefined> {
  const lookups = new Batcher<K, V | undefined>(
    async (keys) => {
      const found = await findMany(keys);
      return keys.map((key) => ({ ok: true, value: found.get(key) }));
    },
    { maxRuns: 1 },
  );
  return (key) => lookups.submit(key);
}

/**
 * One value per owner, made on first use and dropped with the owner: how a use case keeps one
 * batcher per set of services without the services having to carry it.
 */
export function onePer<O extends object, V>(make: (owner: O) => V): (owner: O) => V {
  const made = new WeakMap<O, V>();
  return (owner) => {
    let value = made.get(owner);
    if (value === undefined) {
      value = make(owner);
      made.set(owner, value);
    }
    return value;
  };
}
