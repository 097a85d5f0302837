import { randomBytes } from 'node:crypto';
import { createDatabase } from '../../src/create-database.js';
import type { Database, DatabaseBackend } from '../../src/database.js';
import { openPglite } from '../../src/open-pglite.js';
import { pgliteImage } from './pglite-images.js';

export interface TestDatabaseOptions {
  /** Apply the migrations. Default true. */
  migrate?: boolean;
  /** Most pooled connections to PostgreSQL. Default 10. */
  poolMax?: number;
  env?: NodeJS.ProcessEnv;
}

export interface TestDatabase extends Database {
  /** The PostgreSQL schema this database lives in; undefined on PGlite. */
  readonly schema: string | undefined;
}

/**
 * Opens an isolated, empty (but migrated) database. PGlite: a fresh in-memory engine, started from
 * an image of a fresh cluster (migrated or not) made once, rather than from its own `initdb`.
 * PostgreSQL (`DATABASE_URL`): a new uniquely named schema on the shared server, dropped by
 * `close()`, so test files running in parallel never see each other's rows.
 */
export async function openTestDatabase(
  backend: DatabaseBackend,
  options: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (backend === 'pglite') {
    const database = await openPglite('memory://', undefined, {
      loadDataDir: await pgliteImage(migrate),
    });
    return {
      knex: database.knex,
      backend: database.backend,
      close: () => database.close(),
      schema: undefined,
    };
  }
  const url = (options.env ?? process.env).DATABASE_URL;
  if (!url) throw new Error('a PostgreSQL test database needs DATABASE_URL');
  // The timestamp tells leftovers of a killed run apart from a live one.
  const schema = `test_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const database = await createDatabase({ url, schema, migrate, poolMax: options.poolMax });
  return {
    ...database,
    schema,
    async close() {
      try {
        await database.knex.raw('drop schema if exists ?? cascade', [schema]);
      } finally {
        await database.close();
      }
    },
  };
}
