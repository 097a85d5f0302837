import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { findAsset, migrate, migrations } from '../src/index.js';
import { migrationSourceOf } from '../src/migration-source.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { randomDigest } from './test-data.js';

const before = migrations.filter((migration) => migration.name < '0024');

describe.each(testBackends())('asset hash version (migration 0024) on %s', (backend) => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
  });

  it('when assets were stored before hash versions, then the upgrade keeps their hash as version 1, shared hashes included', async () => {
    // Arrange: a database as it was before the migration, two users' assets with one assetHash.
    db = await openTestDatabase(backend, { migrate: false });
    const { knex } = db;
    await knex.migrate.latest({ migrationSource: migrationSourceOf(before) });
    const shared = randomDigest();
    const trackIds: string[] = [];
    for (const name of ['alice', 'bob']) {
      const userId = `user-${name}-${randomUUID()}`;
      await knex('plans').insert({ id: `plan-${userId}`, name: 'Test plan' });
      await knex('users').insert({ id: userId, display_name: name, plan_id: `plan-${userId}` });
      const id = randomUUID();
      trackIds.push(`did:test:trackid:${id}`);
      await knex('assets').insert({
        id,
        track_id: `did:test:trackid:${id}`,
        user_id: userId,
        asset_id: 'pallet-42',
        data: JSON.stringify({ id: 'P-42' }),
        asset_hash: shared,
        network_id: '31337',
      });
    }

    // Act
    await migrate(knex);

    // Assert
    const found = await Promise.all(trackIds.map((trackId) => findAsset(knex, trackId)));
    expect(found.map((asset) => [asset?.hashVersion, asset?.assetHash])).toEqual([
      [1, shared],
      [1, shared],
    ]);
  });
});
