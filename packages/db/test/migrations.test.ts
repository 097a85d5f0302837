import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, migrations, newerMigrations, rollbackAll } from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';

const allTables = [
  'anchor_batches',
  'anchor_records',
  'anchor_transactions',
  'api_keys',
  'asset_shares',
  'assets',
  'audit_log',
  'certificate_counts',
  'certificates',
  'credit_movements',
  'credits',
  'evidence_clocks',
  'evidences',
  'idempotency_keys',
  'issuer_domains',
  'network_health',
  'pin_failures',
  'plan_networks',
  'plans',
  'published_files',
  'rate_limit_counts',
  'signer_nonces',
  'status_backfills',
  'trustpoints',
  'users',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'webhook_events',
];

async function applicationTables(knex: Knex): Promise<string[]> {
  const rows = await knex('information_schema.tables')
    .where({ table_schema: knex.raw('current_schema()'), table_type: 'BASE TABLE' })
    .whereNotIn('table_name', ['knex_migrations', 'knex_migrations_lock'])
    .orderBy('table_name')
    .select<{ table_name: string }[]>('table_name');
  return rows.map((row) => row.table_name);
}

describe.each(testBackends())('migrations on %s', (backend) => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
  });

  it('when migrated up, down and up again, then each step applies or reverts every migration', async () => {
    // Arrange
    db = await openTestDatabase(backend, { migrate: false });
    const names = migrations.map((migration) => migration.name);

    // Act
    const firstUp = await migrate(db.knex);
    const tablesAfterUp = await applicationTables(db.knex);
    const down = await rollbackAll(db.knex);
    const tablesAfterDown = await applicationTables(db.knex);
    const secondUp = await migrate(db.knex);

    // Assert
    expect(firstUp).toEqual(names);
    expect(tablesAfterUp).toEqual(allTables);
    expect(down).toEqual([...names].reverse());
    expect(tablesAfterDown).toEqual([]);
    expect(secondUp).toEqual(names);
    expect(await applicationTables(db.knex)).toEqual(allTables);
  });

  it('when already up to date, then migrating again applies nothing', async () => {
    // Arrange
    db = await openTestDatabase(backend);

    // Act
    const applied = await migrate(db.knex);

    // Assert
    expect(applied).toEqual([]);
  });

  it('when a newer version migrated the database further, then this version applies nothing and runs; missing one of its own as well, then it stops saying so', async () => {
    // Arrange: a migration of a version to come, as a rolling upgrade leaves it.
    db = await openTestDatabase(backend);
    await db.knex('knex_migrations').insert({
      name: '9999-future-thing',
      batch: 99,
      migration_time: new Date(),
    });

    // Act
    const onNewer = await migrate(db.knex);
    const last = migrations.at(-1)?.name ?? '';
    await db.knex('knex_migrations').where({ name: last }).delete();
    const refusal = await migrate(db.knex).catch((error: unknown) => error);

    // Assert
    expect(onNewer).toEqual([]);
    expect(await newerMigrations(db.knex)).toEqual(['9999-future-thing']);
    expect((refusal as Error).message).toBe(
      `the database was migrated by another version of Trustpoint: it has 9999-future-thing, which this version does not know, and lacks ${last}; run the version that migrated it`,
    );
  });
});
