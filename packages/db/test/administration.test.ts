import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchedUserLookup,
  changeCredits,
  createUser,
  findCreditBalance,
  findUser,
  findUserAccount,
  findUsers,
  listAuditEntries,
  listCreditMovements,
  listPlans,
  listUserAccounts,
  recordAudit,
  refundPaidRecords,
  savePlan,
  setUserDisabled,
  updateUser,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenPaidRecord, givenUser, uniqueId } from './test-data.js';

const ADMIN = { actorId: 'admin-1', requestId: 'req-1' };

describe.each(testBackends())('administration on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  describe('roles and disabled users', () => {
    it('when a user is created without a role, then it is a user; with one, it has it', async () => {
      // Arrange
      const plan = await savePlan(db.knex, { id: uniqueId('plan'), name: 'p', networkIds: [] });

      // Act
      const plain = await createUser(db.knex, {
        id: uniqueId('u'),
        displayName: 'U',
        planId: plan.id,
      });
      const admin = await createUser(db.knex, {
        id: uniqueId('a'),
        displayName: 'A',
        planId: plan.id,
        role: 'admin',
      });

      // Assert
      expect(plain.role).toBe('user');
      expect(admin.role).toBe('admin');
      expect((await findUser(db.knex, admin.id))?.role).toBe('admin');
    });

    it('when a user is disabled, then findUser, findUsers and the batched lookup leave it out, and the admin query keeps it', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 3 });

      // Act
      const disabled = await setUserDisabled(db.knex, user.id, true);

      // Assert
      expect(disabled?.disabledAt).toBeInstanceOf(Date);
      expect(await findUser(db.knex, user.id)).toBeUndefined();
      expect((await findUsers(db.knex, [user.id])).size).toBe(0);
      expect(await batchedUserLookup(db.knex)(user.id)).toBeUndefined();
      expect(await findUserAccount(db.knex, user.id)).toEqual({
        ...user,
        disabledAt: disabled?.disabledAt,
        tokensValidAfter: disabled?.disabledAt,
        credits: 3,
      });
    });

    it('when a disabled user is enabled again, then it is found again, its tokens from before the disabling still refused', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const disabled = await setUserDisabled(db.knex, user.id, true);
      const disabledAgain = await setUserDisabled(db.knex, user.id, true);

      // Act
      const enabled = await setUserDisabled(db.knex, user.id, false);

      // Assert
      expect(user.tokensValidAfter).toBeUndefined();
      expect(disabledAgain?.tokensValidAfter).toEqual(disabled?.disabledAt);
      expect(enabled?.disabledAt).toBeNull();
      expect(await findUser(db.knex, user.id)).toEqual({
        ...user,
        tokensValidAfter: disabled?.disabledAt,
      });
    });

    it('when a disabled user is updated, then the change applies and the account comes back', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      await setUserDisabled(db.knex, user.id, true);

      // Act
      const updated = await updateUser(db.knex, user.id, { role: 'admin', displayName: 'Root' });

      // Assert
      expect(updated).toMatchObject({ role: 'admin', displayName: 'Root' });
      expect(updated?.disabledAt).toBeInstanceOf(Date);
    });

    it('when a role outside user and admin is written, then the database refuses it', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      const write = db.knex('users').where('id', user.id).update({ role: 'root' });

      // Assert
      await expect(write).rejects.toThrow(/users_role_check/);
    });

    it('when users are listed by page, then disabled ones are included unless filtered', async () => {
      // Arrange
      const first = await givenUser(db.knex);
      const second = await givenUser(db.knex);
      await setUserDisabled(db.knex, second.id, true);

      // Act
      const all = await listUserAccounts(db.knex, { offset: 0, limit: 1000, order: 'asc' });
      const disabled = await listUserAccounts(db.knex, {
        offset: 0,
        limit: 1000,
        order: 'asc',
        disabled: true,
      });
      const page = await listUserAccounts(db.knex, { offset: 1, limit: 1, order: 'asc' });

      // Assert
      const ids = all.accounts.map((account) => account.id);
      expect(ids).toEqual(expect.arrayContaining([first.id, second.id]));
      expect(ids).toEqual([...ids].sort());
      expect(all.total).toBe(all.accounts.length);
      expect(disabled.accounts.map((account) => account.id)).toContain(second.id);
      expect(disabled.accounts.map((account) => account.id)).not.toContain(first.id);
      expect(page.accounts).toHaveLength(1);
      expect(page.accounts[0]?.id).toBe(ids[1]);
      expect(page.total).toBe(all.total);
    });
  });

  describe('plans', () => {
    it('when plans are listed, then each comes with its networks', async () => {
      // Arrange
      const id = uniqueId('plan');
      await savePlan(db.knex, { id, name: 'Listed', networkIds: ['137', '1'] });

      // Act
      const plans = await listPlans(db.knex);

      // Assert
      expect(plans.find((plan) => plan.id === id)).toEqual({
        id,
        name: 'Listed',
        networkIds: ['1', '137'],
      });
    });
  });

  describe('credit movements', () => {
    it('when a user is created, then its initial balance is the first movement', async () => {
      // Arrange
      const plan = await savePlan(db.knex, { id: uniqueId('plan'), name: 'p', networkIds: [] });
      const id = uniqueId('user');

      // Act
      await createUser(
        db.knex,
        { id, displayName: 'U', planId: plan.id, initialCredits: 7 },
        ADMIN,
      );

      // Assert
      const { movements } = await listCreditMovements(db.knex, id, {
        offset: 0,
        limit: 10,
        order: 'asc',
      });
      expect(movements).toEqual([
        expect.objectContaining({ kind: 'initial', amount: 7, balanceAfter: 7, ...ADMIN }),
      ]);
    });

    it('when credits are granted, set and refunded, then each is in the ledger with the balance after', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 5 });

      // Act
      const granted = await changeCredits(db.knex, user.id, {
        grant: 10,
        reason: 'bought',
        ...ADMIN,
      });
      const set = await changeCredits(db.knex, user.id, { balance: 4, reason: 'reset', ...ADMIN });
      const records = [
        await givenPaidRecord(db.knex, user.id),
        await givenPaidRecord(db.knex, user.id),
      ];
      await db.knex.transaction((trx) => refundPaidRecords(trx, records, 'withdrawn'));

      // Assert
      expect(granted).toMatchObject({
        kind: 'grant',
        amount: 10,
        balanceAfter: 15,
        reason: 'bought',
      });
      expect(set).toMatchObject({ kind: 'set', amount: -11, balanceAfter: 4, reason: 'reset' });
      expect(await findCreditBalance(db.knex, user.id)).toBe(6);
      const { movements, total } = await listCreditMovements(db.knex, user.id, {
        offset: 0,
        limit: 10,
        order: 'desc',
      });
      expect(total).toBe(5);
      expect(movements.map((m) => [m.kind, m.amount, m.balanceAfter, m.actorId])).toEqual([
        ['refund', 1, 6, null],
        ['refund', 1, 5, null],
        ['set', -11, 4, 'admin-1'],
        ['grant', 10, 15, 'admin-1'],
        ['initial', 5, 5, null],
      ]);
    });

    it('when the user has no balance, then changing credits returns undefined and records nothing', async () => {
      // Arrange
      const id = uniqueId('nobody');

      // Act
      const change = await changeCredits(db.knex, id, { grant: 1, ...ADMIN });

      // Assert
      expect(change).toBeUndefined();
      expect(
        (await listCreditMovements(db.knex, id, { offset: 0, limit: 1, order: 'asc' })).total,
      ).toBe(0);
    });

    it('when a grant is not a positive integer or a set is negative, then it is refused', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      const changes = [
        changeCredits(db.knex, user.id, { grant: 0, ...ADMIN }),
        changeCredits(db.knex, user.id, { grant: 1.5, ...ADMIN }),
        changeCredits(db.knex, user.id, { balance: -1, ...ADMIN }),
      ];

      // Assert
      for (const change of changes) await expect(change).rejects.toThrow(RangeError);
    });
  });

  describe('audit log', () => {
    it('when entries are recorded, then they are listed newest first and filtered', async () => {
      // Arrange
      const target = `user:${uniqueId('u')}`;
      const actorId = uniqueId('actor');

      // Act
      await recordAudit(db.knex, [
        { actorId, requestId: 'r1', action: 'user.create', target, changes: { role: 'user' } },
        { actorId, requestId: 'r1', action: 'user.disable', target },
        { actorId: null, requestId: null, action: 'user.create', target: 'user:other' },
      ]);

      // Assert
      const byActor = await listAuditEntries(db.knex, { actorId, offset: 0, limit: 10 });
      expect(byActor.total).toBe(2);
      expect(byActor.entries.map((e) => [e.action, e.target, e.changes])).toEqual([
        ['user.disable', target, {}],
        ['user.create', target, { role: 'user' }],
      ]);
      const byAction = await listAuditEntries(db.knex, {
        actorId,
        action: 'user.create',
        offset: 0,
        limit: 10,
      });
      expect(byAction.entries.map((e) => e.requestId)).toEqual(['r1']);
      const byTarget = await listAuditEntries(db.knex, { target, offset: 1, limit: 10 });
      expect(byTarget).toMatchObject({ total: 2, entries: [{ action: 'user.create' }] });
      const future = await listAuditEntries(db.knex, {
        actorId,
        since: new Date(Date.now() + 60_000),
        offset: 0,
        limit: 10,
      });
      expect(future.total).toBe(0);
    });

    it('when an entry is recorded in a transaction that rolls back, then it is not there', async () => {
      // Arrange
      const target = `user:${uniqueId('u')}`;

      // Act
      const failed = db.knex.transaction(async (trx) => {
        await recordAudit(trx, [{ ...ADMIN, action: 'user.create', target }]);
        throw new Error('change failed');
      });

      // Assert
      await expect(failed).rejects.toThrow('change failed');
      expect((await listAuditEntries(db.knex, { target, offset: 0, limit: 1 })).total).toBe(0);
    });

    it.each([
      ['an update', (knex: TestDatabase['knex']) => knex('audit_log').update({ action: 'x' })],
      ['a delete', (knex: TestDatabase['knex']) => knex('audit_log').delete()],
      ['a truncate', (knex: TestDatabase['knex']) => knex.raw('truncate audit_log')],
    ])('when %s is tried on the audit log, then the database refuses it', async (_, write) => {
      // Arrange
      const target = `user:${uniqueId('u')}`;
      await recordAudit(db.knex, [{ ...ADMIN, action: 'user.create', target }]);

      // Act
      const attempt = write(db.knex);

      // Assert
      await expect(attempt).rejects.toThrow(/append-only/);
      expect((await listAuditEntries(db.knex, { target, offset: 0, limit: 1 })).total).toBe(1);
    });
  });
});
