import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { knex, type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import type { Database } from './database.js';
import { parseInt8 } from './parse-int8.js';

const inMemory = 'memory://';

/**
 * PGlite's own start parameters (0.5.x), with PostgreSQL's buffer cache cut from its default
 * 128 MB: the engine's WebAssembly memory holds the whole cache and never gives it back, and the
 * data directory's files stay in the operating system's page cache anyway. Measured on the
 * embedded service (`trustpoint start`, idle): see docs/performance.md.
 */
const PGLITE_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
  '-c',
  'shared_buffers=16MB',
];

interface QueryObject {
  method?: string;
}

/**
 * knex-pglite names the command of a result after knex's method, so a `del()` reports "DEL" where
 * pg reports "DELETE", and knex then returns the raw result instead of the deleted row count.
 * Renaming the method makes `delete()` return a count on both backends.
 */
// knex's typings leave out `processResponse`, which every dialect implements.
const PgliteDialect = ClientPGLite as unknown as new (config: Knex.Config) => Knex.Client & {
  processResponse(obj: QueryObject, runner: unknown): unknown;
};

class PgliteClient extends PgliteDialect {
  override processResponse(obj: QueryObject, runner: unknown): unknown {
    const method = obj.method === 'del' ? 'delete' : obj.method;
    return super.processResponse({ ...obj, method }, runner);
  }
}

/** An open PGlite database, which can also be written out as an image of its data directory. */
export interface PgliteDatabase extends Database {
  /** The data directory as a tar image (`PGlite.dumpDataDir`), to start another engine from. */
  dumpDataDir(): Promise<Blob>;
}

export interface PgliteOptions {
  /**
   * A data directory image (from `dumpDataDir`) to start from, instead of initialising an empty
   * cluster: an in-memory engine then skips `initdb`, most of its start-up time.
   */
  loadDataDir?: Blob;
}

export async function openPglite(
  dataDir: string,
  schema: string | undefined,
  options: PgliteOptions = {},
): Promise<PgliteDatabase> {
  if (!dataDir.startsWith(inMemory)) await mkdir(dataDir, { recursive: true });
  // PGlite returns int8 as a number when it fits and as a bigint otherwise: one rule for both
  // backends instead.
  const pglite = new PGlite({
    dataDir,
    parsers: { [types.INT8]: parseInt8 },
    startParams: PGLITE_START_PARAMS,
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
  });
  // Fail here, with the engine's own message, when the data directory cannot be opened.
  await pglite.waitReady;
  const instance = knex({
    client: PgliteClient as unknown as typeof Knex.Client,
    // knex-pglite takes an existing engine through a connection function; knex's types do not
    // know that shape. Its pool is fixed at one connection: PGlite serves one session at a time.
    connection: (() => ({ pglite })) as unknown as Knex.Config['connection'],
    ...(schema === undefined ? {} : { searchPath: [schema] }),
  });
  return {
    knex: instance,
    backend: 'pglite',
    dumpDataDir: () => pglite.dumpDataDir('none'),
    // Stops the engine even when the pool never opened its connection.
    async close() {
      await instance.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
