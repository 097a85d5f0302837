import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changeCredits,
  listCreditMovements,
  migrate,
  migrations,
  recordAudit,
} from '../src/index.js';
import { migrationSourceOf } from '../src/migration-source.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';

const before = migrations.filter((migration) => migration.name < '0025');
/** Up to this upgrade and no further, whatever later migrations are added. */
const throughLedger = migrations.filter((migration) => migration.name < '0026');

describe.each(testBackends())('spends in the credit ledger (migration 0025) on %s', (backend) => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
  });

  it('when a ledger was kept before spends were listed, then after the upgrade it lists them in place, every id its own, and new movements take ids after every audit entry', async () => {
    // Arrange: a database as it was before, where the user started with 2 credits, spent both,
    // was granted 3, spent one, and got a refund; the audit log holds the three spends.
    db = await openTestDatabase(backend, { migrate: false });
    const { knex } = db;
    await knex.migrate.latest({ migrationSource: migrationSourceOf(before) });
    const userId = `user-${randomUUID()}`;
    await knex('plans').insert({ id: `plan-${userId}`, name: 'Test plan' });
    await knex('users').insert({ id: userId, display_name: 'old', plan_id: `plan-${userId}` });
    await knex('credits').insert({ user_id: userId, balance: 3 });
    const spendOn = (n: number) =>
      recordAudit(knex, [
        {
          actorId: userId,
          requestId: null,
          action: 'certificate.create',
          target: `certificate:did:test:certid:${String(n)}`,
        },
      ]);
    const movement = (kind: string, amount: number, balanceAfter: number) =>
      knex('credit_movements').insert({
        user_id: userId,
        kind,
        amount,
        balance_after: balanceAfter,
      });
    await movement('initial', 2, 2);
    await spendOn(1);
    await spendOn(2);
    await movement('grant', 3, 3);
    await spendOn(3);
    await movement('refund', 1, 3);
    // Other entries of the log, so that audit ids run ahead of the movements' own.
    for (let n = 0; n < 5; n += 1) {
      await recordAudit(knex, [
        { actorId: 'admin', requestId: null, action: 'user.create', target: `user:${String(n)}` },
      ]);
    }

    // Act
    await migrate(knex);
    const granted = await changeCredits(knex, userId, {
      grant: 1,
      actorId: 'admin',
      requestId: null,
    });
    await knex.transaction(async (trx) => {
      await trx('credits').where('user_id', userId).decrement('balance', 1);
      await recordAudit(trx, [
        {
          actorId: userId,
          requestId: null,
          action: 'certificate.create',
          target: 'certificate:did:test:certid:4',
        },
      ]);
    });

    // Assert
    const { movements, total } = await listCreditMovements(knex, userId, {
      offset: 0,
      limit: 20,
      order: 'asc',
    });
    expect(total).toBe(8);
    expect(
      movements.map((row) => [row.kind, row.amount, row.balanceAfter, row.spentOn?.certId]),
    ).toEqual([
      ['initial', 2, 2, undefined],
      ['spend', -1, 1, 'did:test:certid:1'],
      ['spend', -1, 0, 'did:test:certid:2'],
      ['grant', 3, 3, undefined],
      ['spend', -1, 2, 'did:test:certid:3'],
      ['refund', 1, 3, undefined],
      ['grant', 1, 4, undefined],
      ['spend', -1, 3, 'did:test:certid:4'],
    ]);
    expect(new Set(movements.map((row) => row.id)).size).toBe(8);
    const audited = await knex('audit_log').max<{ max: number }[]>({ max: 'id' });
    const [, , , oldGrant, , , newGrant, lastSpend] = movements;
    expect(oldGrant?.id).toBeGreaterThan(movements[4]?.id ?? Infinity);
    expect(newGrant?.id).toBe(granted?.id);
    expect(lastSpend?.id).toBeGreaterThan(newGrant?.id ?? Infinity);
    expect(lastSpend?.id).toBe(audited[0]?.max);
  });

  it('when the upgrade is rolled back, then movements take ids of their own again', async () => {
    // Arrange
    db = await openTestDatabase(backend, { migrate: false });
    const { knex } = db;
    await knex.migrate.latest({ migrationSource: migrationSourceOf(throughLedger) });
    const userId = `user-${randomUUID()}`;
    await knex('plans').insert({ id: `plan-${userId}`, name: 'Test plan' });
    await knex('users').insert({ id: userId, display_name: 'u', plan_id: `plan-${userId}` });
    await knex('credits').insert({ user_id: userId, balance: 1 });
    await knex('credit_movements').insert({
      user_id: userId,
      kind: 'initial',
      amount: 1,
      balance_after: 1,
    });

    // Act
    await knex.migrate.down({ migrationSource: migrationSourceOf(throughLedger) });
    const [row] = await knex('credit_movements')
      .insert({ user_id: userId, kind: 'grant', amount: 1, balance_after: 2 })
      .returning<{ id: number }[]>('id');

    // Assert
    const ids = await knex('credit_movements').orderBy('id').pluck<number[]>('id');
    expect(ids).toHaveLength(2);
    expect(row?.id).toBe(ids[1]);
    await expect(knex.raw('select refund_of from credit_movements')).rejects.toThrow();
  });
});
