import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  abandonAnchorBatch,
  claimAnchorBatch,
  enqueueAnchorRecords,
  findAnchorRecordNetworks,
  findCreditBalance,
  findSignerNextNonce,
  listPendingBatches,
  readAnchorQueueDepth,
  readAnchorRecordStates,
  settleAnchorBatch,
  type AnchorRequest,
  type ClaimOptions,
  type QueuedRecord,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser, randomDigest, uniqueId } from './test-data.js';

const SIGNER = '0x00000000000000000000000000000000000000a1';

/** Evidence records of one network, queued in one statement. */
function evidences(networkId: string, count: number, paidBy?: string): AnchorRequest[] {
  return Array.from({ length: count }, (_, index) => ({
    networkId,
    kind: 'evidence' as const,
    recordKey: `0x${randomDigest()}`,
    hash: randomDigest(),
    timestamp: 1_700_000_000 + index,
    ...(paidBy === undefined ? {} : { paidBy }),
  }));
}

/** A claim whose signer signs every record it is given, naming the transaction by its nonce. */
function claimOf(networkId: string, maxSize: number, sign?: ClaimOptions['sign']): ClaimOptions {
  return {
    networkId,
    kind: 'evidence',
    signer: SIGNER,
    maxSize,
    chainNonce: () => Promise.resolve(7),
    sign:
      sign ??
      ((_records: QueuedRecord[], nonce: number) =>
        Promise.resolve({
          transaction: { raw: `0xraw${String(nonce)}`, hash: `0x${randomDigest()}` },
          rejected: [],
        })),
  };
}

describe.each(testBackends())('the anchoring queue on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend, { poolMax: 4 });
  });
  afterAll(() => db.close());

  it('when two claims run at once, then each record joins one batch and the batches take consecutive nonces', async () => {
    // Arrange
    const networkId = uniqueId('net');
    const ids = await enqueueAnchorRecords(db.knex, evidences(networkId, 6));
    // A signer slow enough that the second claim arrives while the first holds the nonce.
    const slowSign: ClaimOptions['sign'] = async (_records, nonce) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return {
        transaction: { raw: `0xraw${String(nonce)}`, hash: `0x${randomDigest()}` },
        rejected: [],
      };
    };

    // Act
    const claims = await Promise.all([
      claimAnchorBatch(db.knex, claimOf(networkId, 3, slowSign)),
      claimAnchorBatch(db.knex, claimOf(networkId, 3, slowSign)),
    ]);

    // Assert
    const claimed = claims.flatMap((claim) => claim?.records.map((record) => record.id) ?? []);
    expect(claimed.sort((a, b) => a - b)).toEqual(ids);
    expect(claims.map((claim) => claim?.batch?.nonce).sort()).toEqual([7, 8]);
    expect(await findSignerNextNonce(db.knex, networkId, SIGNER)).toBe(9);
    const states = await readAnchorRecordStates(db.knex, ids);
    expect(states.every((state) => state.status === 'batched')).toBe(true);
    expect(await claimAnchorBatch(db.knex, claimOf(networkId, 3))).toBeNull();
  });

  it('when nothing moves while a batch is signed, then it is signed once and nothing is held meanwhile', async () => {
    // Arrange
    const networkId = uniqueId('net');
    const ids = await enqueueAnchorRecords(db.knex, evidences(networkId, 3));
    let signings = 0;
    let lockedMeanwhile: 'locked' | 'waited' | undefined;
    const signWhileOthersLock: ClaimOptions['sign'] = async (_records, nonce) => {
      signings += 1;
      // Another session locks the nonce row and the records: it would wait for a claim holding
      // them (on PGlite, for any open transaction).
      const lock = db.knex.transaction(async (trx) => {
        await trx('signer_nonces').where({ network_id: networkId }).forUpdate();
        await trx('anchor_records').whereIn('id', ids).forUpdate();
        return 'locked' as const;
      });
      const waited = new Promise<'waited'>((resolve) => {
        setTimeout(() => {
          resolve('waited');
        }, 2_000);
      });
      lockedMeanwhile ??= await Promise.race([lock, waited]);
      return {
        transaction: { raw: `0xraw${String(nonce)}`, hash: `0x${randomDigest()}` },
        rejected: [],
      };
    };

    // Act
    const claim = await claimAnchorBatch(db.knex, claimOf(networkId, 10, signWhileOthersLock));

    // Assert
    expect(lockedMeanwhile).toBe('locked');
    expect(signings).toBe(1);
    expect(claim?.records.map((record) => record.id)).toEqual(ids);
    expect(claim?.batch).toMatchObject({ nonce: 7, rawTransaction: '0xraw7' });
    expect(await findSignerNextNonce(db.knex, networkId, SIGNER)).toBe(8);
  });

  it('when another signer takes the records while a batch is signed, then that batch is never stored and the claim signs the next ones', async () => {
    // Arrange
    const networkId = uniqueId('net');
    const ids = await enqueueAnchorRecords(db.knex, evidences(networkId, 4));
    const otherSigner = '0x00000000000000000000000000000000000000b2';
    const signed: { nonce: number; ids: number[]; hash: string }[] = [];
    let other: Awaited<ReturnType<typeof claimAnchorBatch>> | undefined;
    const signAfterOther: ClaimOptions['sign'] = async (records, nonce) => {
      // The first time, another signer claims the two oldest records before this batch is stored.
      other ??= await claimAnchorBatch(db.knex, { ...claimOf(networkId, 2), signer: otherSigner });
      const hash = `0x${randomDigest()}`;
      signed.push({ nonce, ids: records.map((record) => record.id), hash });
      return { transaction: { raw: `0xraw${String(signed.length)}`, hash }, rejected: [] };
    };

    // Act
    const claim = await claimAnchorBatch(db.knex, claimOf(networkId, 2, signAfterOther));

    // Assert
    expect(other?.records.map((record) => record.id)).toEqual(ids.slice(0, 2));
    expect(signed.map((signing) => signing.ids)).toEqual([ids.slice(0, 2), ids.slice(2, 4)]);
    expect(signed.map((signing) => signing.nonce)).toEqual([7, 7]);
    expect(claim?.records.map((record) => record.id)).toEqual(ids.slice(2, 4));
    expect(claim?.batch).toMatchObject({ nonce: 7, transactionHash: signed[1]?.hash });
    const pending = (await listPendingBatches(db.knex, networkId)).filter(
      (batch) => batch.signer === SIGNER,
    );
    expect(pending.map((batch) => batch.transactions.map((t) => t.transactionHash))).toEqual([
      [signed[1]?.hash],
    ]);
    expect(await findSignerNextNonce(db.knex, networkId, SIGNER)).toBe(8);
  });

  it('when the signer refuses a paid record, then it fails with the reason, its credit comes back, and the rest are batched', async () => {
    // Arrange
    const networkId = uniqueId('net');
    const user = await givenUser(db.knex, { credits: 3 });
    const [refusedId, keptId] = await enqueueAnchorRecords(
      db.knex,
      evidences(networkId, 2, user.id),
    );

    // Act
    const claim = await claimAnchorBatch(
      db.knex,
      claimOf(networkId, 10, (_records, nonce) =>
        Promise.resolve({
          transaction: { raw: `0xraw${String(nonce)}`, hash: `0x${randomDigest()}` },
          rejected: [{ recordId: refusedId ?? 0, reason: 'another hash under its key' }],
        }),
      ),
    );

    // Assert
    expect(claim?.records.map((record) => record.id)).toEqual([keptId]);
    const states = new Map(
      (await readAnchorRecordStates(db.knex, [refusedId ?? 0, keptId ?? 0])).map((state) => [
        state.id,
        state,
      ]),
    );
    const [refused, kept] = [states.get(refusedId ?? 0), states.get(keptId ?? 0)];
    expect(refused).toMatchObject({ status: 'failed', error: 'another hash under its key' });
    expect(kept).toMatchObject({ status: 'batched' });
    expect(await findCreditBalance(db.knex, user.id)).toBe(4);
  });

  it('when a batch waits, is settled, and is settled again, then its records read anchored with its transaction once', async () => {
    // Arrange
    const networkId = uniqueId('net');
    const ids = await enqueueAnchorRecords(db.knex, evidences(networkId, 2));
    const claim = await claimAnchorBatch(db.knex, claimOf(networkId, 10));
    const batch = claim?.batch;
    if (!batch) throw new Error('nothing was claimed');
    const other = uniqueId('net');
    await enqueueAnchorRecords(db.knex, evidences(other, 1));

    // Act: what the metrics read while it waits, then the settlement.
    const depth = await readAnchorQueueDepth(db.knex);
    const pending = await listPendingBatches(db.knex, networkId);
    const settled = {
      batchId: batch.id,
      transactionHash: batch.transactionHash,
      blockNumber: 42,
      smartContract: '0x00000000000000000000000000000000000000b2',
    };
    const first = await settleAnchorBatch(db.knex, settled);
    const again = await settleAnchorBatch(db.knex, settled);

    // Assert
    expect(depth.filter((row) => [networkId, other].includes(row.networkId))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ networkId, state: 'batched', count: 2 }),
        expect.objectContaining({ networkId: other, state: 'queued', count: 1 }),
      ]),
    );
    expect(pending.map((row) => row.id)).toEqual([batch.id]);
    expect(first?.records.map((record) => record.recordId)).toEqual(ids);
    expect(again).toBeUndefined();
    const states = await readAnchorRecordStates(db.knex, ids);
    for (const state of states) {
      expect(state).toMatchObject({
        status: 'anchored',
        transactionHash: batch.transactionHash,
        blockNumber: 42,
        anchoredAt: first?.anchoredAt,
      });
    }
    expect(await findAnchorRecordNetworks(db.knex, ids)).toEqual([networkId, networkId]);
    // The settlement tells when each of its records was queued: its row's created_at.
    const rows = await db
      .knex('anchor_records')
      .whereIn('id', ids)
      .orderBy('id')
      .select<{ id: number; created_at: Date | string }[]>('id', 'created_at');
    expect(first?.records.map((record) => [record.recordId, record.queuedAt.getTime()])).toEqual(
      rows.map((row) => [row.id, new Date(row.created_at).getTime()]),
    );
    const anchoredAt = first?.anchoredAt.getTime() ?? 0;
    expect(first?.records.every((record) => record.queuedAt.getTime() <= anchoredAt)).toBe(true);
    expect(await listPendingBatches(db.knex, networkId)).toEqual([]);
  });

  it('when a batch is abandoned, then its records are queued again and the nonce is raised to the chain, never lowered', async () => {
    // Arrange
    const networkId = uniqueId('net');
    const ids = await enqueueAnchorRecords(db.knex, evidences(networkId, 2));
    const first = await claimAnchorBatch(db.knex, claimOf(networkId, 10));
    if (!first?.batch) throw new Error('nothing was claimed');

    // Act
    await abandonAnchorBatch(db.knex, first.batch, 'nonce used by another transaction', 20);
    const nonceAfter = await findSignerNextNonce(db.knex, networkId, SIGNER);
    const second = await claimAnchorBatch(db.knex, claimOf(networkId, 10));
    if (!second?.batch) throw new Error('nothing was claimed again');
    await abandonAnchorBatch(db.knex, second.batch, 'reverted', 3);

    // Assert
    expect(nonceAfter).toBe(20);
    expect(second.batch.nonce).toBe(20);
    expect(await findSignerNextNonce(db.knex, networkId, SIGNER)).toBe(21);
    const states = await readAnchorRecordStates(db.knex, ids);
    expect(states.map((state) => state.status)).toEqual(['queued', 'queued']);
    expect(await listPendingBatches(db.knex, networkId)).toEqual([]);
  });
});
