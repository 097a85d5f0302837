import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../src/index.js';
import { migrationSourceOf } from '../src/migration-source.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, randomDigest } from './test-data.js';

const before = migrations.filter((migration) => migration.name < '0017');

describe.each(testBackends())('anchor record timestamps on %s', (backend) => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
  });

  it('when records were queued before timestamps were kept, then the upgrade takes each from its trustpoint or evidence', async () => {
    // Arrange: a database as it was before the migration, with a trustpoint and an evidence queued.
    db = await openTestDatabase(backend, { migrate: false });
    const { knex } = db;
    await knex.migrate.latest({ migrationSource: migrationSourceOf(before) });
    // Rows of the schema before the migration, written directly: the repositories speak the latest.
    const user = { id: `user-${randomUUID()}` };
    await knex('plans').insert({ id: `plan-${user.id}`, name: 'Test plan' });
    await knex('users').insert({
      id: user.id,
      display_name: 'Test user',
      plan_id: `plan-${user.id}`,
    });
    const certificate = certificateRow(user.id);
    await knex('certificates').insert(certificate);
    const queue = (kind: 'trustpoint' | 'evidence') => ({
      network_id: '31337',
      kind,
      record_key: `0x${randomDigest()}`,
      hash: randomDigest(),
      trustpoint_type: kind === 'trustpoint' ? 0 : null,
    });
    const [trustpointRecord] = await knex('anchor_records')
      .insert(queue('trustpoint'))
      .returning<{ id: number }[]>('id');
    const [evidenceRecord] = await knex('anchor_records')
      .insert(queue('evidence'))
      .returning<{ id: number }[]>('id');
    const [unlinked] = await knex('anchor_records')
      .insert(queue('evidence'))
      .returning<{ id: number }[]>('id');
    await knex('trustpoints').insert({
      certificate_id: certificate.id,
      type: 0,
      hash: randomDigest(),
      timestamp: 1_767_225_600_123,
      network_id: '31337',
      anchor_record_id: trustpointRecord?.id,
    });
    const assetId = randomUUID();
    const assetHash = randomDigest();
    await knex('assets').insert({
      id: assetId,
      track_id: `track-${assetId}`,
      user_id: user.id,
      asset_id: assetId,
      data: JSON.stringify({ a: 1 }),
      asset_hash: assetHash,
      network_id: '31337',
    });
    await knex('evidences').insert({
      asset: assetId,
      asset_hash: assetHash,
      timestamp: 1_767_225_601,
      user_owner: `did:user:${user.id}`,
      hash: randomDigest(),
      network_id: '31337',
      anchor_record_id: evidenceRecord?.id,
    });

    // Act
    const applied = await migrate(knex);

    // Assert
    // 0017 first, then every migration after it.
    expect(applied).toEqual(
      migrations.filter((migration) => migration.name >= '0017').map((migration) => migration.name),
    );
    expect(applied[0]).toBe('0017-anchor-record-timestamps');
    const rows = await knex('anchor_records')
      .whereIn(
        'id',
        [trustpointRecord, evidenceRecord, unlinked].map((row) => row?.id ?? 0),
      )
      .orderBy('id')
      .select<{ record_timestamp: number | null }[]>('record_timestamp');
    expect(rows.map((row) => row.record_timestamp)).toEqual([
      1_767_225_600_123,
      1_767_225_601,
      null,
    ]);
  });
});
