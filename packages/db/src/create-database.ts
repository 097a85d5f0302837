import { join } from 'node:path';
import type { Database } from './database.js';
import { migrate } from './migrate.js';
import { openPglite } from './open-pglite.js';
import { openPostgres } from './open-postgres.js';

export interface DatabaseOptions {
  /** PostgreSQL connection string (`DATABASE_URL`). Without it (or empty) PGlite is used. */
  url?: string;
  /** PGlite data directory, or `memory://`. Default `<cwd>/.trustpoint/pgdata`. Ignored with `url`. */
  dataDir?: string;
  /** Schema to work in (the `search_path`), created when missing. Default: the server's default. */
  schema?: string;
  /** Most pooled connections to PostgreSQL. Default 10. PGlite always has exactly one. */
  poolMax?: number;
  /** PostgreSQL `application_name` of the pool's connections. Default `trustpoint`. */
  applicationName?: string;
  /** Apply pending migrations before returning. Default true. */
  migrate?: boolean;
}

const defaultPoolMax = 10;

/** Opens PostgreSQL when given a `url`, the embedded PGlite otherwise, and migrates it. */
export async function createDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const database = await open(options);
  try {
    if (options.schema !== undefined) {
      await database.knex.raw('create schema if not exists ??', [options.schema]);
    }
    if (options.migrate ?? true) await migrate(database.knex);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function open(options: DatabaseOptions): Promise<Database> {
  // An empty DATABASE_URL counts as unset, as shells and .env files tend to produce one.
  if (options.url) {
    return openPostgres(
      options.url,
      options.poolMax ?? defaultPoolMax,
      options.schema,
      options.applicationName,
    );
  }
  const dataDir = options.dataDir ?? join(process.cwd(), '.trustpoint', 'pgdata');
  return openPglite(dataDir, options.schema);
}
