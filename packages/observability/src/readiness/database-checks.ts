import { appliedMigrations, migrations, pingDatabase } from '@trustpoint/db';
import type { Knex } from 'knex';
import type { ReadinessCheck } from './readiness-check.js';

/** `database`: one round trip through the pool (a closed pool or a stopped server fails it). */
export function databaseCheck(knex: Knex): ReadinessCheck {
  return {
    name: 'database',
    run: async () => {
      await pingDatabase(knex);
      return undefined;
    },
  };
}

/**
 * `migrations`: every migration this build knows is applied, so the code and the schema agree.
 * A database ahead of the code (a newer release migrated it) is ready too: migrations only add.
 */
export function migrationsCheck(knex: Knex): ReadinessCheck {
  return {
    name: 'migrations',
    run: async () => {
      const names = await appliedMigrations(knex);
      if (names === undefined) throw new Error('no migration applied: run trustpoint migrate');
      const applied = new Set(names);
      const pending = migrations.filter((migration) => !applied.has(migration.name));
      if (pending.length > 0) {
        throw new Error(
          `${String(pending.length)} migration(s) not applied (first: ${pending[0]?.name ?? ''}); run trustpoint migrate`,
        );
      }
      return `${String(migrations.length)} applied`;
    },
  };
}
