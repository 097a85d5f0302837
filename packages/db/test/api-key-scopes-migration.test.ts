import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../src/index.js';
import { migrationSourceOf } from '../src/migration-source.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { randomDigest } from './test-data.js';

const before = migrations.filter((migration) => migration.name < '0023');

describe.each(testBackends())('API key scopes (migration 0023) on %s', (backend) => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
  });

  it('when keys were made before scopes, then the upgrade gives them every scope and no parent; new keys must state theirs', async () => {
    // Arrange: a database as it was before the migration, with one key.
    db = await openTestDatabase(backend, { migrate: false });
    const { knex } = db;
    await knex.migrate.latest({ migrationSource: migrationSourceOf(before) });
    const userId = `user-${randomUUID()}`;
    await knex('plans').insert({ id: `plan-${userId}`, name: 'Test plan' });
    await knex('users').insert({ id: userId, display_name: 'old', plan_id: `plan-${userId}` });
    await knex('api_keys').insert({
      id: 'OldKey000001',
      user_id: userId,
      name: 'old',
      secret_hash: randomDigest(),
    });

    // Act
    await migrate(knex);

    // Assert
    const row = await knex('api_keys')
      .where('id', 'OldKey000001')
      .first<{ scope: string; parent_key_id: string | null }>('scope', 'parent_key_id');
    expect(row).toEqual({ scope: 'read certify track keys webhooks admin', parent_key_id: null });
    await expect(
      knex('api_keys').insert({
        id: 'NewKey000001',
        user_id: userId,
        name: 'new',
        secret_hash: randomDigest(),
      }),
    ).rejects.toThrow();
    await expect(
      knex('api_keys').insert({
        id: 'NewKey000002',
        user_id: userId,
        name: 'new',
        secret_hash: randomDigest(),
        scope: 'read everything',
      }),
    ).rejects.toThrow(/api_keys_scope_check/);
  });
});
