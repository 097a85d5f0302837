import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findAsset,
  findAssetsByIds,
  findCreditBalance,
  insertAsset,
  insertEvidence,
  listAssets,
  shareAsset,
  unshareAsset,
  withdrawAsset,
  type AssetRecord,
  type NewAsset,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenPaidRecord, givenUser, orderedUuid, randomDigest, violationOf } from './test-data.js';

function newAsset(userId: string, overrides: Partial<NewAsset> = {}): NewAsset {
  // Time-ordered as the service's ids: assets created within one clock tick keep their order.
  const id = orderedUuid();
  return {
    id,
    trackId: `did:test:trackid:${id}`,
    userId,
    assetId: `asset-${id}`,
    data: { id: 'pallet', version: '1', nested: { list: [1, 2] } },
    assetHash: randomDigest(),
    hashVersion: 2,
    networkId: '31337',
    ...overrides,
  };
}

/** An evidence of the asset whose anchor record its owner paid for. */
async function givenEvidence(knex: Knex, asset: AssetRecord, timestamp = 1_767_225_600) {
  return insertEvidence(knex, {
    asset: asset.id,
    assetHash: asset.assetHash,
    metadata: {},
    timestamp,
    userOwner: `did:user:${asset.userId}`,
    hash: randomDigest(),
    networkId: asset.networkId,
    anchorRecordId: await givenPaidRecord(knex, asset.userId),
  });
}

describe.each(testBackends())('assets repository on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  describe('insertAsset and findAsset', () => {
    it('when an asset is inserted, then it is found by trackID with its evidences and shares, every field mapped', async () => {
      // Arrange
      const owner = await givenUser(db.knex);
      const reader = await givenUser(db.knex);
      const asset = newAsset(owner.id);

      // Act
      const inserted = await insertAsset(db.knex, asset);
      const evidence = await givenEvidence(db.knex, inserted);
      await shareAsset(db.knex, asset.id, reader.id);
      const found = await findAsset(db.knex, asset.trackId);

      // Assert
      expect(inserted).toEqual({
        ...asset,
        createdAt: expect.any(Date) as unknown,
        sharedWith: [],
        evidences: [],
      });
      expect(found).toEqual({ ...inserted, sharedWith: [reader.id], evidences: [evidence] });
      expect(await findAssetsByIds(db.knex, [asset.id])).toEqual([found]);
      expect(await findAssetsByIds(db.knex, [asset.id], { withEvidences: false })).toEqual([
        { ...found, evidences: [] },
      ]);
      expect(await findAsset(db.knex, asset.trackId, { withEvidences: false })).toEqual({
        ...found,
        evidences: [],
      });
      expect(await findAsset(db.knex, 'did:test:trackid:unknown')).toBeUndefined();
    });

    it('when an owner repeats an assetId, then the insert violates the unique key; another owner may use it', async () => {
      // Arrange
      const owner = await givenUser(db.knex);
      const other = await givenUser(db.knex);
      const first = await insertAsset(db.knex, newAsset(owner.id, { hashVersion: 1 }));

      // Act
      const violation = await violationOf(
        insertAsset(db.knex, newAsset(owner.id, { assetId: first.assetId })),
      );
      const othersCopy = await insertAsset(
        db.knex,
        newAsset(other.id, { assetId: first.assetId, assetHash: first.assetHash, hashVersion: 1 }),
      );

      // Assert
      expect(violation).toEqual({ kind: 'unique', constraint: 'assets_user_asset_id_unique' });
      expect(othersCopy.assetHash).toBe(first.assetHash);
      expect(othersCopy.hashVersion).toBe(1);
    });

    it('when a version 2 assetHash is stored for a second asset, then the insert violates its unique index', async () => {
      // Arrange
      const owner = await givenUser(db.knex);
      const other = await givenUser(db.knex);
      const first = await insertAsset(db.knex, newAsset(owner.id));

      // Act
      const violation = await violationOf(
        insertAsset(db.knex, newAsset(other.id, { assetHash: first.assetHash })),
      );

      // Assert
      expect(first.hashVersion).toBe(2);
      expect(violation).toEqual({ kind: 'unique', constraint: 'assets_v2_asset_hash_unique' });
    });

    it('when an asset names an unknown hash version, then the insert violates the check', async () => {
      // Arrange
      const owner = await givenUser(db.knex);

      // Act
      const violation = await violationOf(
        insertAsset(db.knex, newAsset(owner.id, { hashVersion: 3 as 2 })),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'assets_hash_version_check' });
    });
  });

  describe('listAssets', () => {
    it('when a user owns some assets and others are shared with them, then the list pages over both, newest first, with the total', async () => {
      // Arrange
      const owner = await givenUser(db.knex);
      const friend = await givenUser(db.knex);
      const own: AssetRecord[] = [];
      for (let i = 0; i < 3; i += 1) own.push(await insertAsset(db.knex, newAsset(owner.id)));
      const shared = await insertAsset(db.knex, newAsset(friend.id));
      await insertAsset(db.knex, newAsset(friend.id));
      await shareAsset(db.knex, shared.id, owner.id);

      // Act
      const firstPage = await listAssets(db.knex, {
        userId: owner.id,
        offset: 0,
        limit: 3,
        order: 'desc',
      });
      const ascending = await listAssets(db.knex, {
        userId: owner.id,
        offset: 1,
        limit: 10,
        order: 'asc',
      });

      // Assert
      const all = [...own, shared].map((asset) => asset.id);
      expect(firstPage.total).toBe(4);
      expect(firstPage.assets.map((asset) => asset.id)).toEqual([...all].reverse().slice(0, 3));
      expect(ascending.assets.map((asset) => asset.id)).toEqual(all.slice(1));
      expect(ascending.total).toBe(4);
    });

    it('when a share is withdrawn, then the asset leaves the list of that user only', async () => {
      // Arrange
      const owner = await givenUser(db.knex);
      const friend = await givenUser(db.knex);
      const asset = await insertAsset(db.knex, newAsset(owner.id));
      await shareAsset(db.knex, asset.id, friend.id);
      await shareAsset(db.knex, asset.id, friend.id);
      const page = { offset: 0, limit: 10, order: 'desc' } as const;

      // Act
      const removed = await unshareAsset(db.knex, asset.id, friend.id);
      const removedAgain = await unshareAsset(db.knex, asset.id, friend.id);

      // Assert
      expect([removed, removedAgain]).toEqual([true, false]);
      expect((await listAssets(db.knex, { userId: friend.id, ...page })).total).toBe(0);
      expect((await listAssets(db.knex, { userId: owner.id, ...page })).total).toBe(1);
    });
  });

  describe('withdrawAsset', () => {
    it('when the only evidence is withdrawn, then the asset and its shares go and the credit comes back', async () => {
      // Arrange
      const owner = await givenUser(db.knex, { credits: 0 });
      const friend = await givenUser(db.knex);
      const asset = await insertAsset(db.knex, newAsset(owner.id));
      const evidence = await givenEvidence(db.knex, asset);
      await shareAsset(db.knex, asset.id, friend.id);

      // Act
      const removed = await db.knex.transaction((trx) =>
        withdrawAsset(trx, asset.id, owner.id, evidence.id),
      );

      // Assert
      expect(removed).toBe(true);
      expect(await findAsset(db.knex, asset.trackId)).toBeUndefined();
      expect(await findCreditBalance(db.knex, owner.id)).toBe(1);
    });

    it('when the asset got another evidence meanwhile, then only the first evidence goes', async () => {
      // Arrange
      const owner = await givenUser(db.knex, { credits: 0 });
      const asset = await insertAsset(db.knex, newAsset(owner.id));
      const first = await givenEvidence(db.knex, asset, 1_767_225_600);
      const second = await givenEvidence(db.knex, asset, 1_767_225_601);

      // Act
      const removed = await db.knex.transaction((trx) =>
        withdrawAsset(trx, asset.id, owner.id, first.id),
      );

      // Assert
      expect(removed).toBe(false);
      expect((await findAsset(db.knex, asset.trackId))?.evidences).toEqual([second]);
      expect(await findCreditBalance(db.knex, owner.id)).toBe(1);
    });
  });
});
