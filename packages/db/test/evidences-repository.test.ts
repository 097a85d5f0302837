import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findCreditBalance,
  findEvidence,
  findEvidencesByHash,
  insertAsset,
  insertEvidence,
  loadEvidences,
  nextEvidenceTimestamp,
  withdrawEvidence,
  type AssetRecord,
  type NewEvidence,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenPaidRecord, givenUser, randomDigest, violationOf } from './test-data.js';

const now = 1_767_225_600;

async function givenAsset(knex: Knex, userId: string, assetHash = randomDigest()) {
  const id = randomUUID();
  return insertAsset(knex, {
    id,
    trackId: `did:test:trackid:${id}`,
    userId,
    assetId: `asset-${id}`,
    data: { id: '1' },
    assetHash,
    // Version 1: two users' assets may share an assetHash, and then its clock.
    hashVersion: 1,
    networkId: '31337',
  });
}

function newEvidence(asset: AssetRecord, overrides: Partial<NewEvidence> = {}): NewEvidence {
  return {
    asset: asset.id,
    assetHash: asset.assetHash,
    metadata: { step: 'packed', nested: { by: ['a', 'b'] } },
    timestamp: now,
    userOwner: `did:user:${asset.userId}`,
    hash: randomDigest(),
    networkId: '31337',
    anchorRecordId: null,
    ...overrides,
  };
}

describe.each(testBackends())('evidences repository on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  describe('nextEvidenceTimestamp', () => {
    it('when asked within one second, then each call gets the next second; when time has moved on, then now', async () => {
      // Arrange
      const assetHash = randomDigest();

      // Act
      const first = await nextEvidenceTimestamp(db.knex, assetHash, now);
      const second = await nextEvidenceTimestamp(db.knex, assetHash, now);
      const third = await nextEvidenceTimestamp(db.knex, assetHash, now);
      const later = await nextEvidenceTimestamp(db.knex, assetHash, now + 100);

      // Assert
      expect([first, second, third, later]).toEqual([now, now + 1, now + 2, now + 100]);
    });

    it('when many transactions ask for the same assetHash at once, then all get different seconds', async () => {
      // Arrange
      const assetHash = randomDigest();

      // Act
      const stamps = await Promise.all(
        Array.from({ length: 12 }, () =>
          db.knex.transaction((trx) => nextEvidenceTimestamp(trx, assetHash, now)),
        ),
      );

      // Assert
      expect([...stamps].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 12 }, (_, i) => now + i),
      );
    });

    it('when a transaction that took a second rolls back, then the second is handed out again', async () => {
      // Arrange
      const assetHash = randomDigest();
      await nextEvidenceTimestamp(db.knex, assetHash, now);

      // Act
      await db.knex
        .transaction(async (trx) => {
          await nextEvidenceTimestamp(trx, assetHash, now);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      const next = await nextEvidenceTimestamp(db.knex, assetHash, now);

      // Assert
      expect(next).toBe(now + 1);
    });
  });

  describe('insertEvidence and loadEvidences', () => {
    it('when evidences are inserted, then they are loaded per asset, oldest first, every field mapped', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const asset = await givenAsset(db.knex, user.id);
      const later = newEvidence(asset, { timestamp: now + 5 });
      const earlier = newEvidence(asset, { timestamp: now });

      // Act
      const insertedLater = await insertEvidence(db.knex, later);
      const insertedEarlier = await insertEvidence(db.knex, earlier);
      const loaded = await loadEvidences(db.knex, [asset.id]);

      // Assert
      expect(insertedLater).toEqual({
        ...later,
        id: expect.any(Number) as unknown,
        smartContract: null,
        transactionHash: null,
        anchoredAt: null,
        status: 'pending',
      });
      expect(loaded.get(asset.id)).toEqual([insertedEarlier, insertedLater]);
      expect(await findEvidence(db.knex, insertedLater.id)).toEqual(insertedLater);
      expect(await findEvidence(db.knex, -1)).toBeUndefined();
    });

    it('when two assets with the same assetHash get an evidence at the same second, then the second insert violates the unique key', async () => {
      // Arrange
      const assetHash = randomDigest();
      const mine = await givenAsset(db.knex, (await givenUser(db.knex)).id, assetHash);
      const theirs = await givenAsset(db.knex, (await givenUser(db.knex)).id, assetHash);
      await insertEvidence(db.knex, newEvidence(mine));

      // Act
      const violation = await violationOf(insertEvidence(db.knex, newEvidence(theirs)));

      // Assert
      expect(violation).toEqual({
        kind: 'unique',
        constraint: 'evidences_asset_hash_timestamp_unique',
      });
    });
  });

  describe('findEvidencesByHash', () => {
    it('when looked up by hash, then every evidence with that hash is returned and no other', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const hash = randomDigest();
      const first = await insertEvidence(
        db.knex,
        newEvidence(await givenAsset(db.knex, user.id), { hash }),
      );
      const second = await insertEvidence(
        db.knex,
        newEvidence(await givenAsset(db.knex, user.id), { hash }),
      );
      await insertEvidence(db.knex, newEvidence(await givenAsset(db.knex, user.id)));

      // Act
      const found = await findEvidencesByHash(db.knex, hash);

      // Assert
      expect(found).toEqual([first, second]);
    });
  });

  describe('withdrawEvidence', () => {
    it('when an evidence is withdrawn, then it is gone and the credit is given back once', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 1 });
      const evidence = await insertEvidence(
        db.knex,
        newEvidence(await givenAsset(db.knex, user.id), {
          anchorRecordId: await givenPaidRecord(db.knex, user.id),
        }),
      );

      // Act
      await withdrawEvidence(db.knex, evidence.id);
      await withdrawEvidence(db.knex, evidence.id);

      // Assert
      expect(await findEvidencesByHash(db.knex, evidence.hash)).toEqual([]);
      expect(await findCreditBalance(db.knex, user.id)).toBe(2);
    });
  });
});
