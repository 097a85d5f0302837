import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimIdempotencyKey,
  constraintViolation,
  findCreditBalance,
  findEvidence,
  findEvidencesByHash,
  holdAssetShares,
  insertAsset,
  insertEvidence,
  insertEvidencesWithWrites,
  loadEvidences,
  lockCreditBalances,
  nextEvidenceTimestamp,
  shareAsset,
  unshareAsset,
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

  describe('insertEvidencesWithWrites', () => {
    /** An evidence of the asset at `timestamp`, paid by `payerId`, with its record and audit entry. */
    const withWrites = (
      asset: AssetRecord,
      payerId: string,
      timestamp: number,
      idempotency?: { userId: string; key: string; owner: string },
    ) => {
      const { anchorRecordId: _none, ...evidence } = newEvidence(asset, { timestamp });
      return {
        evidence,
        record: {
          networkId: '31337',
          kind: 'evidence' as const,
          recordKey: `0x${randomDigest()}`,
          hash: evidence.hash,
          timestamp,
          paidBy: payerId,
        },
        payerId,
        throughShare: payerId !== asset.userId,
        audit: {
          actorId: payerId,
          requestId: null,
          action: 'evidence.add',
          target: `asset:${asset.trackId}`,
        },
        idempotency,
        resource: `${String(timestamp)} ${asset.trackId}`,
      };
    };
    const claimAt = async (userId: string, key: string, at: number) => {
      const outcome = await claimIdempotencyKey(db.knex, {
        userId,
        key,
        fingerprint: 'same request',
        owner: randomUUID(),
        now: at,
        leaseMs: 1_000,
        retentionMs: 86_400_000,
      });
      if (outcome.kind !== 'claimed') throw new Error(`expected claimed, got ${outcome.kind}`);
      return outcome.claim;
    };

    it('when evidences are stored at once, then each is stored on its queued record with its audit entry and credit, a held key names it, and one whose key was taken over or whose payer has no balance is left out', async () => {
      // Arrange
      const [payer, unknown] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 5 }),
      ];
      await db.knex('credits').where('user_id', unknown.id).delete();
      const asset = await givenAsset(db.knex, payer.id);
      const heldKey = randomUUID();
      const held = await claimAt(payer.id, heldKey, Date.now());
      const lostKey = randomUUID();
      const lost = await claimAt(payer.id, lostKey, Date.now() - 5_000);
      await claimAt(payer.id, lostKey, Date.now());
      const items = [
        withWrites(asset, payer.id, now + 1, held),
        withWrites(asset, payer.id, now + 2),
        withWrites(asset, payer.id, now + 3, lost),
        // As the owner would (no share to hold): the balance is what is tested.
        { ...withWrites(asset, unknown.id, now + 4), throughShare: false },
      ];

      // Act
      const outcomes = await insertEvidencesWithWrites(db.knex, items);

      // Assert
      expect(outcomes.map((outcome) => outcome.kind)).toEqual([
        'stored',
        'stored',
        'keyLost',
        'withoutBalance',
      ]);
      const loaded = await loadEvidences(db.knex, [asset.id]);
      expect((loaded.get(asset.id) ?? []).map((evidence) => evidence.timestamp)).toEqual([
        now + 1,
        now + 2,
      ]);
      for (const [position, outcome] of outcomes.slice(0, 2).entries()) {
        if (outcome.kind !== 'stored') throw new Error('expected stored');
        expect(outcome.evidence).toMatchObject({
          ...items[position]?.evidence,
          anchorRecordId: expect.any(Number) as unknown,
        });
        const record = await db
          .knex('anchor_records')
          .where('id', outcome.evidence.anchorRecordId ?? -1)
          .first<{ record_key: string } | undefined>('record_key');
        expect(record?.record_key).toBe(items[position]?.record.recordKey);
      }
      expect(await findCreditBalance(db.knex, payer.id)).toBe(3);
      const audited = await db
        .knex('audit_log')
        .where({ target: `asset:${asset.trackId}`, action: 'evidence.add' })
        .count<{ count: string | number }[]>('* as count');
      expect(Number(audited[0]?.count)).toBe(2);
      const keyRow = await db
        .knex('idempotency_keys')
        .where({ user_id: payer.id, key: heldKey })
        .first<{ state: string; resource: string }>('state', 'resource');
      expect(keyRow).toEqual({ state: 'committed', resource: items[0]?.resource });
    });

    it('when the owner withdrew a share before the evidence is written through it, then it is left out as unshared and nothing of it is written or spent, while one still shared is stored', async () => {
      // Arrange
      const [owner, withdrawn, kept] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 5 }),
      ];
      const asset = await givenAsset(db.knex, owner.id);
      await shareAsset(db.knex, asset.id, withdrawn.id);
      await shareAsset(db.knex, asset.id, kept.id);
      await unshareAsset(db.knex, asset.id, withdrawn.id);

      // Act
      const outcomes = await insertEvidencesWithWrites(db.knex, [
        withWrites(asset, withdrawn.id, now + 1),
        withWrites(asset, kept.id, now + 2),
        withWrites(asset, owner.id, now + 3),
      ]);

      // Assert
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['unshared', 'stored', 'stored']);
      const loaded = await loadEvidences(db.knex, [asset.id]);
      expect((loaded.get(asset.id) ?? []).map((evidence) => evidence.timestamp)).toEqual([
        now + 2,
        now + 3,
      ]);
      expect(await findCreditBalance(db.knex, withdrawn.id)).toBe(5);
      expect(await findCreditBalance(db.knex, kept.id)).toBe(4);
    });

    it('when an evidence is being written through a share, then withdrawing the share waits for it to commit', async () => {
      // Arrange
      const [owner, sharee] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 5 }),
      ];
      const asset = await givenAsset(db.knex, owner.id);
      await shareAsset(db.knex, asset.id, sharee.id);
      const order: string[] = [];
      let withdrawal: Promise<unknown> | undefined;

      // Act: the writer holds the share, as the evidence statement does until it commits.
      await db.knex.transaction(async (trx) => {
        const held = await holdAssetShares(trx, [{ asset: asset.id, userId: sharee.id }]);
        order.push(held.has(`${asset.id} ${sharee.id}`) ? 'held' : 'gone');
        withdrawal = unshareAsset(db.knex, asset.id, sharee.id).then(() => order.push('unshared'));
        await new Promise((resolve) => setTimeout(resolve, 200));
        order.push('committed');
      });
      await withdrawal;
      const after = await db.knex.transaction((trx) =>
        holdAssetShares(trx, [{ asset: asset.id, userId: sharee.id }]),
      );

      // Assert
      expect(order).toEqual(['held', 'committed', 'unshared']);
      expect(after.size).toBe(0);
    });

    it('when a payer would spend more credits than they hold, then it fails on the balance and nothing of it stays', async () => {
      // Arrange
      const payer = await givenUser(db.knex, { credits: 1 });
      const asset = await givenAsset(db.knex, payer.id);
      const items = [withWrites(asset, payer.id, now + 1), withWrites(asset, payer.id, now + 2)];

      // Act
      const violation = await violationOf(insertEvidencesWithWrites(db.knex, items));

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'credits_balance_check' });
      expect(await findCreditBalance(db.knex, payer.id)).toBe(1);
      expect((await loadEvidences(db.knex, [asset.id])).get(asset.id) ?? []).toEqual([]);
    });

    it("when a transaction holds a payer's balance, then the statement writes nothing before it has it: an evidence the transaction writes meanwhile at the same second wins, and nobody deadlocks", async () => {
      // Arrange
      const payer = await givenUser(db.knex, { credits: 5 });
      const asset = await givenAsset(db.knex, payer.id);
      const mine = withWrites(asset, payer.id, now + 1);
      let statement: Promise<unknown> | undefined;

      // Act: had the statement written its evidence before waiting for the balance, each would
      // wait for the other.
      await db.knex.transaction(async (trx) => {
        await lockCreditBalances(trx, [payer.id]);
        statement = insertEvidencesWithWrites(db.knex, [mine]).catch((error: unknown) => error);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await insertEvidence(trx, newEvidence(asset, { timestamp: now + 1 }));
      });
      const outcome = await statement;

      // Assert
      expect(constraintViolation(outcome)).toEqual({
        kind: 'unique',
        constraint: expect.stringMatching(/^evidences_asset(_hash)?_timestamp_unique$/) as unknown,
      });
      expect(await findCreditBalance(db.knex, payer.id)).toBe(5);
    });
  });
});
