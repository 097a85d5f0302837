import { join } from 'node:path';
import { createDatabase, migrate, newerMigrations, type DatabaseBackend } from '@trustpoint/db';
import type { LauncherConfig } from './launcher-config.js';
import { databaseUrlError } from './role-config-error.js';
import { servicePidHolding } from './service-pid-file.js';

export interface MigrationOutcome {
  backend: DatabaseBackend;
  /** Migrations applied by this run, oldest first (none: the database was current). */
  applied: string[];
  /**
   * Migrations the database holds that this version does not know: a newer version migrated it
   * (it runs on it, since migrations only add; its own `migrate` is the one to run).
   */
  newer: string[];
}

/**
 * `trustpoint migrate`: applies pending migrations to `DATABASE_URL`, or to the data directory's
 * embedded database when no service holds it. On PostgreSQL any number of runs (and starting
 * roles) may overlap: they take turns under an advisory lock, and the later ones find nothing to do.
 */
export async function migrateDatabase(config: LauncherConfig): Promise<MigrationOutcome> {
  if (config.databaseUrl === undefined) {
    const holder = await servicePidHolding(config.dataDir);
    if (holder !== undefined) {
      throw new Error(
        `the embedded database in ${config.dataDir} is open in a running service (pid ${String(holder)}); stop it first (it migrates at every start anyway)`,
      );
    }
  }
  const database = await createDatabase(
    config.databaseUrl === undefined
      ? { dataDir: join(config.dataDir, 'pgdata'), migrate: false }
      : {
          url: config.databaseUrl,
          migrate: false,
          // One connection holds the lock, the other migrates.
          poolMax: 2,
          applicationName: 'trustpoint-migrate',
        },
  );
  try {
    const applied = await migrate(database.knex);
    return { backend: database.backend, applied, newer: await newerMigrations(database.knex) };
  } catch (error) {
    throw databaseUrlError(error, config.databaseUrl);
  } finally {
    await database.close();
  }
}
