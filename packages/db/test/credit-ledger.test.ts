import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changeCredits,
  findCreditBalance,
  listCreditMovements,
  recordAudit,
  refundPaidRecords,
  spendCredit,
  withdrawCertificate,
  withdrawEvidence,
  type CreditMovement,
  type CreditSpendingAction,
  type User,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenPaidRecord, givenUser, randomDigest } from './test-data.js';

const ADMIN = { actorId: 'admin-1', requestId: null };
const ALL = { offset: 0, limit: 1_000, order: 'asc' } as const;

/** What a creation writes in the transaction that spends the user's credit. */
interface Spend {
  action: CreditSpendingAction;
  target: string;
  changes: Record<string, unknown>;
  requestId?: string;
  /** Its paid anchor record, linked to a trustpoint or evidence as the APIs link them. */
  record?: number;
}

/**
 * Spends one of the user's credits as the APIs do: the balance first (its row lock held until the
 * commit), then the creation's records and its audit entry. False when no credit is left.
 */
function spend(knex: Knex, user: User, what: Spend): Promise<boolean> {
  return knex.transaction(async (trx) => {
    if (!(await spendCredit(trx, user.id))) return false;
    await recordAudit(trx, [
      {
        actorId: user.id,
        requestId: what.requestId ?? null,
        action: what.action,
        target: what.target,
        changes: what.changes,
      },
    ]);
    return true;
  });
}

/** A certificate of the user whose Evidence trustpoint is queued under a paid record. */
async function givenCertificate(knex: Knex, user: User) {
  const row = certificateRow(user.id);
  await knex('certificates').insert(row);
  const record = await givenPaidRecord(knex, user.id, 'trustpoint');
  await knex('trustpoints').insert({
    certificate_id: row.id,
    type: 0,
    hash: row.hash,
    timestamp: row.issued_on,
    network_id: '31337',
    anchor_record_id: record,
  });
  return { id: row.id, certId: row.cert_id, issuedOn: row.issued_on, record };
}

/** An asset of the user with one evidence at `timestamp`, queued under a record `payer` paid. */
async function givenEvidence(knex: Knex, owner: User, payer: User, timestamp: number) {
  const id = randomUUID();
  const trackId = `did:test:trackid:${id}`;
  const assetHash = randomDigest();
  await knex('assets').insert({
    id,
    track_id: trackId,
    user_id: owner.id,
    asset_id: `asset-${id}`,
    data: JSON.stringify({}),
    asset_hash: assetHash,
    hash_version: 2,
    network_id: '31337',
  });
  const record = await givenPaidRecord(knex, payer.id);
  const hash = randomDigest();
  const [evidence] = await knex('evidences')
    .insert({
      asset: id,
      asset_hash: assetHash,
      metadata: JSON.stringify({}),
      timestamp,
      user_owner: `did:user:${payer.id}`,
      hash,
      network_id: '31337',
      anchor_record_id: record,
    })
    .returning<{ id: number }[]>('id');
  return { id: evidence?.id ?? 0, trackId, hash, record };
}

/** Every row, oldest first, checking that each balance follows from the one before. */
async function wholeLedger(knex: Knex, user: User): Promise<CreditMovement[]> {
  const { movements, total } = await listCreditMovements(knex, user.id, ALL);
  expect(movements).toHaveLength(total);
  let balance = 0;
  for (const movement of movements) {
    balance += movement.amount;
    expect(movement.balanceAfter).toBe(balance);
  }
  expect(balance).toBe(await findCreditBalance(knex, user.id));
  return movements;
}

describe.each(testBackends())('the credit ledger on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  it('when credits are spent between grants, sets and refunds, then each spend is listed where it happened, with what it paid for and the balance after it', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 2 });
    const certificate = await givenCertificate(db.knex, user);
    const evidence = await givenEvidence(db.knex, user, user, 1_767_225_600);

    // Act
    await spend(db.knex, user, {
      action: 'certificate.create',
      target: `certificate:${certificate.certId}`,
      changes: { type: 'content' },
      requestId: 'create-1',
    });
    await spend(db.knex, user, {
      action: 'evidence.add',
      target: `asset:${evidence.trackId}`,
      changes: { evidenceTimestamp: 1_767_225_600, hash: evidence.hash },
    });
    const refused = await spend(db.knex, user, {
      action: 'certificate.sign',
      target: `certificate:${certificate.certId}`,
      changes: { timestamp: certificate.issuedOn + 1 },
    });
    await changeCredits(db.knex, user.id, { grant: 3, reason: 'bought', ...ADMIN });
    await spend(db.knex, user, {
      action: 'certificate.sign',
      target: `certificate:${certificate.certId}`,
      changes: { timestamp: certificate.issuedOn + 1 },
    });
    await changeCredits(db.knex, user.id, { balance: 10, ...ADMIN });
    await db.knex.transaction((trx) => withdrawEvidence(trx, evidence.id));

    // Assert
    expect(refused).toBe(false);
    const ledger = await wholeLedger(db.knex, user);
    expect(ledger.map((row) => [row.kind, row.amount, row.balanceAfter])).toEqual([
      ['initial', 2, 2],
      ['spend', -1, 1],
      ['spend', -1, 0],
      ['grant', 3, 3],
      ['spend', -1, 2],
      ['set', 8, 10],
      ['refund', 1, 11],
    ]);
    const [, created, added, , signed, , refund] = ledger;
    expect(created).toMatchObject({
      actorId: user.id,
      requestId: 'create-1',
      spentOn: {
        operation: 'certificate.create',
        certId: certificate.certId,
        trackId: null,
        evidenceHash: null,
        timestamp: null,
      },
      refundOf: null,
    });
    expect(added?.spentOn).toEqual({
      operation: 'evidence.add',
      certId: null,
      trackId: evidence.trackId,
      evidenceHash: evidence.hash,
      timestamp: 1_767_225_600,
    });
    expect(signed?.spentOn).toMatchObject({
      operation: 'certificate.sign',
      certId: certificate.certId,
      timestamp: certificate.issuedOn + 1,
    });
    expect(refund).toMatchObject({ refundOf: added?.id, spentOn: added?.spentOn });
    expect(new Set(ledger.map((row) => row.id)).size).toBe(ledger.length);
  });

  it('when the ledger is read a page at a time, in either order and any page size, then the pages are slices of the whole', async () => {
    // Arrange: spends before, between and after stored movements.
    const user = await givenUser(db.knex, { credits: 4 });
    const target = `certificate:did:test:certid:${randomUUID()}`;
    const certify = () =>
      spend(db.knex, user, { action: 'certificate.create', target, changes: {} });
    await certify();
    await certify();
    await changeCredits(db.knex, user.id, { grant: 1, ...ADMIN });
    await changeCredits(db.knex, user.id, { grant: 2, ...ADMIN });
    for (let n = 0; n < 4; n += 1) await certify();
    await changeCredits(db.knex, user.id, { balance: 3, ...ADMIN });
    await certify();
    const whole = await wholeLedger(db.knex, user);
    expect(whole).toHaveLength(11);

    // Act and Assert
    for (const limit of [1, 2, 3, 5, 11, 12]) {
      for (let offset = 0; offset <= whole.length + 1; offset += 1) {
        const asc = await listCreditMovements(db.knex, user.id, { offset, limit, order: 'asc' });
        const desc = await listCreditMovements(db.knex, user.id, { offset, limit, order: 'desc' });
        expect(asc.total).toBe(whole.length);
        expect(desc.total).toBe(whole.length);
        expect(asc.movements).toEqual(whole.slice(offset, offset + limit));
        expect(desc.movements).toEqual([...whole].reverse().slice(offset, offset + limit));
      }
    }
  });

  it("when another user spends, then none of it is in the user's ledger", async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 1 });
    const other = await givenUser(db.knex, { credits: 3 });
    const evidence = await givenEvidence(db.knex, user, other, 1_767_225_601);

    // Act: the other user adds an evidence to the user's asset (shared with them), and withdraws it.
    await spend(db.knex, other, {
      action: 'evidence.add',
      target: `asset:${evidence.trackId}`,
      changes: { evidenceTimestamp: 1_767_225_601, hash: evidence.hash },
    });
    await spend(db.knex, user, {
      action: 'asset.create',
      target: `asset:${evidence.trackId}`,
      changes: { evidenceTimestamp: 1_767_225_600 },
    });
    await db.knex.transaction((trx) => withdrawEvidence(trx, evidence.id));

    // Assert
    expect((await wholeLedger(db.knex, user)).map((row) => row.kind)).toEqual(['initial', 'spend']);
    const theirs = await wholeLedger(db.knex, other);
    expect(theirs.map((row) => row.kind)).toEqual(['initial', 'spend', 'refund']);
    expect(theirs[2]?.refundOf).toBe(theirs[1]?.id);
  });

  it('when a certificate is withdrawn or its record refused by the chain, then its refund names the spend, and a free record is not refunded', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 2 });
    const withdrawn = await givenCertificate(db.knex, user);
    const refused = await givenCertificate(db.knex, user);
    // A revocation's record: paid by nobody.
    const [freeRecord] = await db
      .knex('anchor_records')
      .insert({
        network_id: '31337',
        kind: 'trustpoint',
        record_key: `0x${randomDigest()}`,
        hash: randomDigest(),
        trustpoint_type: 1,
      })
      .returning<{ id: number }[]>('id');
    for (const certificate of [withdrawn, refused]) {
      await spend(db.knex, user, {
        action: 'certificate.create',
        target: `certificate:${certificate.certId}`,
        changes: {},
      });
    }

    // Act
    await db.knex.transaction((trx) => withdrawCertificate(trx, withdrawn.id, user.id));
    await db.knex.transaction((trx) =>
      refundPaidRecords(trx, [refused.record, freeRecord?.id ?? 0], 'record refused by the chain'),
    );

    // Assert
    const ledger = await wholeLedger(db.knex, user);
    expect(ledger.map((row) => [row.kind, row.reason, row.spentOn?.certId])).toEqual([
      ['initial', null, undefined],
      ['spend', null, withdrawn.certId],
      ['spend', null, refused.certId],
      ['refund', 'certificate creation withdrawn', withdrawn.certId],
      ['refund', 'record refused by the chain', refused.certId],
    ]);
    expect(ledger[3]?.refundOf).toBe(ledger[1]?.id);
    expect(ledger[4]?.refundOf).toBe(ledger[2]?.id);
  });

  it('when spends, grants and reads run at once, then each read is the ledger as it stood at one moment, and the last holds every spend once', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 20 });
    const target = `certificate:did:test:certid:${randomUUID()}`;
    const newest = { offset: 0, limit: 4, order: 'desc' } as const;

    // Act
    const reads: { movements: CreditMovement[]; total: number }[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: 90 }, async (_, index) => {
        if (index % 9 === 0) {
          await changeCredits(db.knex, user.id, { grant: 2, ...ADMIN });
          return 'grant';
        }
        if (index % 3 === 1) {
          reads.push(await listCreditMovements(db.knex, user.id, newest));
          return 'read';
        }
        const made = await spend(db.knex, user, {
          action: 'certificate.create',
          target,
          changes: { n: index },
        });
        return made ? 'spent' : 'refused';
      }),
    );

    // Assert: rows are only ever added at the end, so each read is the end of the ledger then.
    const ledger = await wholeLedger(db.knex, user);
    for (const read of reads) {
      expect(read.movements).toEqual(
        ledger.slice(Math.max(0, read.total - newest.limit), read.total).reverse(),
      );
    }
    const spends = ledger.filter((row) => row.kind === 'spend');
    expect(spends).toHaveLength(outcomes.filter((outcome) => outcome === 'spent').length);
    expect(new Set(spends.map((row) => row.spentOn?.operation))).toEqual(
      new Set(['certificate.create']),
    );
    expect(ledger.filter((row) => row.kind === 'grant')).toHaveLength(10);
  });

  it('when the user has no ledger, then the list is empty', async () => {
    // Act
    const listed = await listCreditMovements(db.knex, `nobody-${randomUUID()}`, ALL);

    // Assert
    expect(listed).toEqual({ movements: [], total: 0 });
  });
});
