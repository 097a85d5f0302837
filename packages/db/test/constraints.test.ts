import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest, uniqueId, violationOf } from './test-data.js';

describe.each(testBackends())('constraints on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  describe('certificates', () => {
    it('when a user reuses an external id, then the second insert is a unique violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const externalId = uniqueId('external');
      await db.knex('certificates').insert(certificateRow(user.id, { external_id: externalId }));

      // Act
      const violation = await violationOf(
        db.knex('certificates').insert(certificateRow(user.id, { external_id: externalId })),
      );

      // Assert
      expect(violation).toEqual({
        kind: 'unique',
        constraint: 'certificates_user_external_id_unique',
      });
    });

    it('when two users share an external id, or one user has several without one, then all are stored', async () => {
      // Arrange
      const [alice, bob] = [await givenUser(db.knex), await givenUser(db.knex)];
      const externalId = uniqueId('external');
      const rows = [
        certificateRow(alice.id, { external_id: externalId }),
        certificateRow(bob.id, { external_id: externalId }),
        certificateRow(alice.id),
        certificateRow(alice.id),
      ];

      // Act
      await db.knex('certificates').insert(rows);

      // Assert
      const count = await db
        .knex('certificates')
        .whereIn('user_id', [alice.id, bob.id])
        .count({ n: '*' })
        .first<{ n: number } | undefined>();
      expect(count?.n).toBe(4);
    });

    it('when a user certifies the same hash twice, then the second insert is a unique violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const hash = randomDigest();
      await db.knex('certificates').insert(certificateRow(user.id, { hash }));

      // Act
      const violation = await violationOf(
        db.knex('certificates').insert(certificateRow(user.id, { hash })),
      );

      // Assert
      expect(violation).toEqual({ kind: 'unique', constraint: 'certificates_user_hash_unique' });
    });

    it('when the type is unknown, then the insert is a check violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      const violation = await violationOf(
        db.knex('certificates').insert(certificateRow(user.id, { type: 'video' })),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'certificates_type_check' });
    });

    it('when the hash is not 64 lowercase hex characters, then the insert is a check violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      const violation = await violationOf(
        db.knex('certificates').insert(certificateRow(user.id, { hash: 'AB'.repeat(32) })),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'certificates_hash_check' });
    });
  });

  describe('trustpoints', () => {
    it('when the type code is outside 0..2, then the insert is a check violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = certificateRow(user.id);
      await db.knex('certificates').insert(certificate);

      // Act
      const violation = await violationOf(
        db.knex('trustpoints').insert({
          certificate_id: certificate.id,
          type: 3,
          hash: certificate.hash,
          timestamp: Date.now(),
          network_id: '31337',
        }),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'trustpoints_type_check' });
    });
  });

  describe('anchor records', () => {
    it('when the same record is queued twice on a network, then the second is a unique violation', async () => {
      // Arrange
      const record = {
        network_id: uniqueId('network'),
        kind: 'evidence',
        record_key: `0x${randomDigest()}`,
        hash: randomDigest(),
      };
      await db.knex('anchor_records').insert(record);

      // Act
      const violation = await violationOf(db.knex('anchor_records').insert(record));

      // Assert
      expect(violation).toEqual({ kind: 'unique', constraint: 'anchor_records_key_unique' });
    });

    it('when a trustpoint record has no trustpoint type, then the insert is a check violation', async () => {
      // Arrange
      const record = {
        network_id: uniqueId('network'),
        kind: 'trustpoint',
        record_key: `0x${randomDigest()}`,
        hash: randomDigest(),
      };

      // Act
      const violation = await violationOf(db.knex('anchor_records').insert(record));

      // Assert
      expect(violation).toEqual({
        kind: 'check',
        constraint: 'anchor_records_trustpoint_type_check',
      });
    });

    it('when the status is unknown, then the insert is a check violation', async () => {
      // Arrange
      const record = {
        network_id: uniqueId('network'),
        kind: 'evidence',
        record_key: `0x${randomDigest()}`,
        hash: randomDigest(),
        status: 'lost',
      };

      // Act
      const violation = await violationOf(db.knex('anchor_records').insert(record));

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'anchor_records_status_check' });
    });
  });

  describe('credits', () => {
    it('when a balance would go negative, then the update is a check violation', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 1 });

      // Act
      const violation = await violationOf(
        db.knex('credits').where('user_id', user.id).update({ balance: -1 }),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'credits_balance_check' });
    });
  });
});
