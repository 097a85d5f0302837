import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { knex, type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import type { Database } from './database.js';
import { parseInt8 } from './parse-int8.js';
import { PGLITE_START_PARAMS } from './pglite-start-params.js';

const inMemory = 'memory://';

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
  _query(connection: unknown, obj: QueryObject): Promise<unknown>;
};

class PgliteClient extends PgliteDialect {
  override processResponse(obj: QueryObject, runner: unknown): unknown {
    const method = obj.method === 'del' ? 'delete' : obj.method;
    return super.processResponse({ ...obj, method }, runner);
  }

  /**
   * Each statement waits for a turn of the event loop first. PGlite runs on this thread and
   * answers through promises alone, so without it a whole transaction (a group commit of 200
   * certificates: 100-250 ms) runs in one turn; and Node (libuv >= 1.45) accepts one connection
   * per turn: under load, new clients then waited 10-20 s to be accepted (bench:create on PGlite,
   * 150 of 500 connections accepted at 7 a second) while their requests sat unread.
   */
  override async _query(connection: unknown, obj: QueryObject): Promise<unknown> {
    await new Promise((resolve) => setImmediate(resolve));
    return super._query(connection, obj);
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

/** What the child of `initializeApart` runs: PGlite's initdb in a data directory, then exit. */
const INITIALIZE = `
const [engine, dataDir, startParams] = process.argv.slice(1);
const { PGlite } = require(engine);
(async () => {
  const pglite = new PGlite({ dataDir, startParams: JSON.parse(startParams) });
  await pglite.waitReady;
  await pglite.close();
})().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String((error && error.message) || error));
    process.exit(1);
  },
);
`;

/** Runs initdb for `target` (an empty or missing directory) in a child process. */
async function initializeInChild(target: string, dataDir: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      INITIALIZE,
      require.resolve('@electric-sql/pglite'),
      target,
      JSON.stringify(PGLITE_START_PARAMS),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) {
    throw new Error(`could not initialise the database in ${dataDir}: ${stderr.trim()}`);
  }
}

/**
 * Initialises an on-disk data directory that has no cluster yet in a child process: `initdb`
 * grows the engine's WebAssembly memory to several hundred MiB that a process never gets back
 * (the embedded service held 360-390 MiB idle after a first start, 280 after a restart). The
 * cluster is made beside the directory and moved into place, so that a first start killed
 * half-way leaves no half-made cluster; where that cannot be done (a parent directory this
 * process may not write, the data directory a mount point), it is made in place.
 */
async function initializeApart(dataDir: string): Promise<void> {
  const building = join(
    dirname(dataDir),
    `.${basename(dataDir)}.initializing-${String(process.pid)}`,
  );
  await rm(building, { recursive: true, force: true }).catch(() => undefined);
  const apart = await mkdir(building).then(
    () => true,
    () => false,
  );
  if (!apart) return initializeInChild(dataDir, dataDir);
  try {
    await initializeInChild(building, dataDir);
    // The directory made empty by mkdir gives way to the initialised one.
    await rmdir(dataDir);
    await rename(building, dataDir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    // Another process starting on the same directory put its cluster there first.
    if (existsSync(join(dataDir, 'PG_VERSION'))) return;
    if (!existsSync(dataDir) || (await readdir(dataDir)).length > 0) throw error;
    await initializeInChild(dataDir, dataDir);
  }
}

export async function openPglite(
  dataDir: string,
  schema: string | undefined,
  options: PgliteOptions = {},
): Promise<PgliteDatabase> {
  if (!dataDir.startsWith(inMemory)) {
    await mkdir(dataDir, { recursive: true });
    const empty = (await readdir(dataDir)).length === 0;
    if (empty && options.loadDataDir === undefined) await initializeApart(dataDir);
  }
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
