import type { Knex } from 'knex';
import { migrations, migrationSource } from './migration-source.js';

/**
 * The session-level advisory lock every Trustpoint process takes to migrate one PostgreSQL
 * database ('trustpnt' in ASCII): any number may start at once, one migrates, the others wait and
 * then find nothing left to do.
 */
export const MIGRATION_LOCK_KEY = 0x7472_7573_7470_6e74n;

function isPostgresServer(knex: Knex): boolean {
  return (knex.client as { config: Knex.Config }).config.client === 'pg';
}

/** The pool's connection handling, which knex's types leave out. */
interface PooledClient {
  pool?: { max?: number };
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

const pooled = (knex: Knex) => knex.client as PooledClient;

function poolMax(knex: Knex): number {
  return pooled(knex).pool?.max ?? 1;
}

async function latest(knex: Knex): Promise<string[]> {
  // A database a newer version migrated (a rolling upgrade, a process of the older version
  // restarting): knex calls it corrupt. With every migration of this version applied, this version
  // runs on it (migrations only add); with some missing, it belongs to another line of versions.
  const newer = await newerMigrations(knex);
  if (newer.length > 0) {
    const pending = await pendingMigrations(knex);
    if (pending.length === 0) return [];
    throw new Error(
      `the database was migrated by another version of Trustpoint: it has ${newer.join(', ')}, which this version does not know, and lacks ${pending.join(', ')}; run the version that migrated it`,
    );
  }
  const [, done] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return done;
}

/**
 * Applies pending migrations; returns the names applied. On a PostgreSQL server, under an advisory
 * lock: knex's own lock (a row in `knex_migrations_lock`) makes a second concurrent run fail at once
 * ("Migration table is already locked") rather than wait, its tables can be created twice by
 * processes starting together, and a process killed mid-migration leaves the row locked for good.
 * The advisory lock is held by one connection of the pool while the migrations run on another, and
 * dies with its session. PGlite is one process's database, so nothing else can migrate it.
 */
export async function migrate(knex: Knex): Promise<string[]> {
  // A pool of one connection could not run migrations beside the one holding the lock.
  if (!isPostgresServer(knex) || poolMax(knex) < 2) return latest(knex);
  const connection = await pooled(knex).acquireConnection();
  try {
    await knex
      .raw('select pg_advisory_lock(?)', [MIGRATION_LOCK_KEY.toString()])
      .connection(connection);
    try {
      // Only a process killed while migrating leaves knex's lock set: nobody else migrates now.
      await knex.migrate.forceFreeMigrationsLock({ migrationSource });
      return await latest(knex);
    } finally {
      await knex
        .raw('select pg_advisory_unlock(?)', [MIGRATION_LOCK_KEY.toString()])
        .connection(connection);
    }
  } finally {
    await pooled(knex).releaseConnection(connection);
  }
}

/**
 * The names of the migrations the database has applied, this build's or a newer one's; undefined
 * when no migration ever ran (knex's bookkeeping table is absent). Only reads.
 */
export async function appliedMigrations(knex: Knex): Promise<string[] | undefined> {
  if (!(await knex.schema.hasTable('knex_migrations'))) return undefined;
  const rows = await knex('knex_migrations').select<{ name: string }[]>('name');
  return rows.map((row) => row.name);
}

/**
 * The migrations the database has applied that this build does not know: a newer version's (none
 * on a database of this version or an older one, or one never migrated). Only reads.
 */
export async function newerMigrations(knex: Knex): Promise<string[]> {
  const known = new Set(migrations.map((migration) => migration.name));
  return ((await appliedMigrations(knex)) ?? []).filter((name) => !known.has(name));
}

/**
 * The migrations this build has that the database has not applied yet (none: it is current). Only
 * reads: unlike knex's `migrate.list`, it never creates knex's tables.
 */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const applied = new Set(await appliedMigrations(knex));
  return migrations.map((migration) => migration.name).filter((name) => !applied.has(name));
}

/** Reverts every applied migration, newest first; returns the names reverted. */
export async function rollbackAll(knex: Knex): Promise<string[]> {
  const [, reverted] = (await knex.migrate.rollback({ migrationSource }, true)) as [
    number,
    string[],
  ];
  return reverted;
}
