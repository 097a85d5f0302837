import type { Knex } from 'knex';
import { migrationSource } from './migration-source.js';

/** Applies pending migrations; returns the names applied. */
export async function migrate(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** Reverts every applied migration, newest first; returns the names reverted. */
export async function rollbackAll(knex: Knex): Promise<string[]> {
  const [, reverted] = (await knex.migrate.rollback({ migrationSource }, true)) as [
    number,
    string[],
  ];
  return reverted;
}
