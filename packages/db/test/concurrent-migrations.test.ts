import { describe, expect, it } from 'vitest';
import { createDatabase, migrations, pendingMigrations } from '../src/index.js';
import { openTestDatabase } from './support/test-database.js';

const serverUrl = process.env.DATABASE_URL;

describe.skipIf(!serverUrl)('Migrations started by several processes at once (PostgreSQL)', () => {
  it('when four pools migrate one empty database together, then each migration is applied once and none fails', async () => {
    // Arrange: an empty schema, as a fresh deployment has.
    const empty = await openTestDatabase('postgres', { migrate: false });
    const schema = empty.schema ?? '';
    try {
      expect(await pendingMigrations(empty.knex)).toEqual(migrations.map((m) => m.name));

      // Act: four pools, as four processes starting at once would have.
      const pools = await Promise.all(
        Array.from({ length: 4 }, () =>
          createDatabase({ url: serverUrl, schema, poolMax: 2, migrate: true }),
        ),
      );
      await Promise.all(pools.map((pool) => pool.close()));

      // Assert
      const applied = await empty.knex('knex_migrations').select<{ name: string }[]>('name');
      expect(applied.map((row) => row.name)).toEqual(migrations.map((m) => m.name));
      expect(await pendingMigrations(empty.knex)).toEqual([]);
      expect(await empty.knex('knex_migrations_lock').first('is_locked')).toEqual({
        is_locked: 0,
      });
    } finally {
      await empty.close();
    }
  }, 60_000);

  it('when a migration run died holding knex lock row, then the next run frees it and migrates', async () => {
    const database = await openTestDatabase('postgres', { migrate: false });
    try {
      await database.knex.schema.createTable('knex_migrations_lock', (table) => {
        table.increments('index').primary();
        table.integer('is_locked');
      });
      await database.knex('knex_migrations_lock').insert({ is_locked: 1 });

      const pool = await createDatabase({
        url: serverUrl,
        schema: database.schema ?? '',
        poolMax: 2,
      });
      await pool.close();

      expect(await pendingMigrations(database.knex)).toEqual([]);
    } finally {
      await database.close();
    }
  }, 60_000);
});
