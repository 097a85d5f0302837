import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { knex, type Knex } from 'knex';
import type { Database } from './database.js';
import { PGLITE_START_PARAMS } from './pglite-start-params.js';
import { PgliteThread, type PgliteSession } from './pglite-thread.js';

const inMemory = 'memory://';

/** Sessions of the engine knex's pool may hold at once. */
const SESSIONS = 4;

interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: unknown;
  method?: string;
  response?: unknown;
}

interface PgliteResults {
  rows: unknown[];
  affectedRows?: number;
}

// knex's PostgreSQL dialect, which knex's typings do not describe: what this client builds on.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PostgresDialect = require('knex/lib/dialects/postgres/index.js') as new (
  config: Knex.Config,
) => Knex.Client & {
  config: { pgliteEngine: PgliteThread };
  searchPath?: string | readonly string[];
  processResponse(obj: QueryObject, runner: unknown): unknown;
  _parseVersion(version: string): string;
};

/**
 * knex's PostgreSQL dialect on the sessions of one PGlite engine (its own thread): each pooled
 * connection is a session (`PgliteThread.session`), so statements of several requests wait in the
 * engine's queue, not for a connection.
 */
class PgliteClient extends PostgresDialect {
  get engine(): PgliteThread {
    return this.config.pgliteEngine;
  }

  // The statements are PGlite's, not the pg driver's.
  _driver(): undefined {
    return undefined;
  }

  async _acquireOnlyConnection(): Promise<PgliteSession> {
    await this.engine.waitReady;
    return this.engine.session();
  }

  override async destroyRawConnection(session: PgliteSession): Promise<void> {
    await session.end();
  }

  async checkVersion(session: PgliteSession): Promise<string> {
    const result = (await session.query('select version()')) as PgliteResults;
    const row = result.rows[0] as { version: string };
    return this._parseVersion(row.version);
  }

  async setSchemaSearchPath(session: PgliteSession, searchPath?: string): Promise<boolean> {
    const path = searchPath ?? this.searchPath;
    if (path === undefined) return true;
    const schemas = typeof path === 'string' ? [path] : path;
    const list = schemas.map((schema) => `"${schema.replace(/"/g, '""')}"`).join(',');
    await session.query(`set search_path to ${list}`);
    return true;
  }

  async _query(session: PgliteSession, obj: QueryObject): Promise<QueryObject> {
    if (!obj.sql) throw new Error('The query is empty');
    // A statement's name (`prepared`) is the pg driver's: PGlite parses every statement anyway.
    const { name: _name, ...options } = (obj.options ?? {}) as { name?: string };
    obj.response = await session.query(obj.sql, obj.bindings, options);
    return obj;
  }

  /**
   * Gives the dialect the result pg would: PGlite reports no command, so it is named after knex's
   * method (`del` as pg's "DELETE", so that `delete()` returns a count on both backends).
   */
  override processResponse(obj: QueryObject, runner: unknown): unknown {
    const results = obj.response as PgliteResults;
    const method = obj.method === 'del' ? 'delete' : obj.method;
    const command =
      method === 'first' || method === 'pluck' ? 'SELECT' : (method?.toUpperCase() ?? '');
    const response = { ...results, rowCount: results.affectedRows, command };
    return super.processResponse({ ...obj, method, response }, runner);
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
  // On a thread of its own; it reads int8 as a number (`parseInt8`), as pg does here.
  const pglite = await PgliteThread.start({
    dataDir,
    startParams: PGLITE_START_PARAMS,
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
  });
  // Fail here, with the engine's own message, when the data directory cannot be opened.
  await pglite.waitReady.catch(async (error: unknown) => {
    await pglite.close();
    throw error;
  });
  const instance = knex({
    client: PgliteClient as unknown as typeof Knex.Client,
    // No connection settings: the sessions are the engine's (`pgliteEngine`, which knex's types
    // do not know). Two runs of each batcher and the anchorers' claims find a session each.
    connection: {},
    pool: { min: 0, max: SESSIONS },
    ...({ pgliteEngine: pglite } as object),
    ...(schema === undefined ? {} : { searchPath: [schema] }),
  });
  return {
    knex: instance,
    backend: 'pglite',
    dumpDataDir: () => pglite.dumpDataDir(),
    releaseMemory: () => pglite.collectGarbage(),
    // Stops the engine even when the pool never opened its connection.
    async close() {
      await instance.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
