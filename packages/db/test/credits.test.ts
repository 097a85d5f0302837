import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findCreditBalance,
  grantCredits,
  listCreditMovements,
  lockCreditBalances,
  spendCredit,
  spendCredits,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser, uniqueId, violationOf } from './test-data.js';

describe.each(testBackends())('credits on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    // Enough PostgreSQL connections for the spenders to really run at the same time.
    db = await openTestDatabase(backend, { poolMax: 25 });
  });

  afterAll(async () => {
    await db.close();
  });

  it('when 50 transactions each spend one of 20 credits at once, then exactly 20 succeed and the balance is 0', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 20 });

    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        db.knex.transaction(async (trx) => {
          const spent = await spendCredit(trx, user.id);
          // Hold the row lock a moment, as a request does while it writes its certificate.
          await trx.raw('select pg_sleep(0.005)');
          return spent;
        }),
      ),
    );

    // Assert
    expect(outcomes.filter(Boolean)).toHaveLength(20);
    expect(await findCreditBalance(db.knex, user.id)).toBe(0);
  });

  it('when the transaction that spent a credit rolls back, then the balance is unchanged', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 3 });

    // Act
    const request = db.knex.transaction(async (trx) => {
      await spendCredit(trx, user.id);
      throw new Error('the request failed after spending');
    });

    // Assert
    await expect(request).rejects.toThrow('the request failed after spending');
    expect(await findCreditBalance(db.knex, user.id)).toBe(3);
  });

  it('when no credit is left, then spending returns false and the balance stays 0', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 1 });

    // Act
    const first = await spendCredit(db.knex, user.id);
    const second = await spendCredit(db.knex, user.id);

    // Assert
    expect([first, second]).toEqual([true, false]);
    expect(await findCreditBalance(db.knex, user.id)).toBe(0);
  });

  it('when the user has no balance at all, then spending returns false', async () => {
    // Arrange
    const userId = uniqueId('nobody');

    // Act
    const spent = await spendCredit(db.knex, userId);

    // Assert
    expect(spent).toBe(false);
    expect(await findCreditBalance(db.knex, userId)).toBeUndefined();
  });

  it('when credits are granted, then they add to the balance', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 2 });

    // Act
    const balance = await grantCredits(db.knex, user.id, 5);

    // Assert
    expect(balance).toBe(7);
    expect(await findCreditBalance(db.knex, user.id)).toBe(7);
    const { movements } = await listCreditMovements(db.knex, user.id, {
      offset: 0,
      limit: 1,
      order: 'desc',
    });
    expect(movements).toEqual([
      expect.objectContaining({ kind: 'grant', amount: 5, balanceAfter: 7, actorId: null }),
    ]);
  });

  it('when the amount granted is not a positive integer, then it throws without writing', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 2 });

    // Act
    const grants = [0, -1, 1.5].map((amount) => grantCredits(db.knex, user.id, amount));

    // Assert
    for (const grant of grants) await expect(grant).rejects.toThrow(RangeError);
    expect(await findCreditBalance(db.knex, user.id)).toBe(2);
  });
  describe('lockCreditBalances and spendCredits', () => {
    it('when balances are locked, then those of existing users are returned, once each, and unknown users left out', async () => {
      // Arrange
      const [first, second] = [
        await givenUser(db.knex, { credits: 4 }),
        await givenUser(db.knex, { credits: 0 }),
      ];
      const unknown = uniqueId('nobody');

      // Act
      const balances = await db.knex.transaction((trx) =>
        lockCreditBalances(trx, [second.id, unknown, first.id, second.id]),
      );

      // Assert
      expect(balances).toEqual(
        new Map([
          [first.id, 4],
          [second.id, 0],
        ]),
      );
    });

    it('when no user is given, then no balance is returned', async () => {
      // Arrange
      const userIds: string[] = [];

      // Act
      const balances = await db.knex.transaction((trx) => lockCreditBalances(trx, userIds));

      // Assert
      expect(balances).toEqual(new Map());
    });

    // PGlite has one connection: no other transaction can try the row meanwhile.
    it.runIf(backend === 'postgres')(
      'when a balance is locked, then another transaction cannot change it until the lock is released',
      async () => {
        // Arrange
        const user = await givenUser(db.knex, { credits: 2 });

        // Act
        const blocked = await db.knex.transaction(async (trx) => {
          await lockCreditBalances(trx, [user.id]);
          return db.knex
            .transaction(async (other) => {
              await other.raw("set local lock_timeout = '100ms'");
              return spendCredit(other, user.id);
            })
            .then(
              () => undefined,
              (error: unknown) => (error as { code?: string }).code,
            );
        });
        const afterwards = await spendCredit(db.knex, user.id);

        // Assert
        expect(blocked).toBe('55P03');
        expect(afterwards).toBe(true);
        expect(await findCreditBalance(db.knex, user.id)).toBe(1);
      },
    );

    it('when credits are spent from several users in one call, then each loses its amount and the others are untouched', async () => {
      // Arrange
      const [first, second, skipped, bystander] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 3 }),
        await givenUser(db.knex, { credits: 4 }),
        await givenUser(db.knex, { credits: 6 }),
      ];

      // Act
      await db.knex.transaction(async (trx) => {
        await lockCreditBalances(trx, [first.id, second.id, skipped.id]);
        await spendCredits(
          trx,
          new Map([
            [first.id, 2],
            [second.id, 3],
            [skipped.id, 0],
          ]),
        );
      });

      // Assert
      const balances = [first, second, skipped, bystander].map((user) =>
        findCreditBalance(db.knex, user.id),
      );
      expect(await Promise.all(balances)).toEqual([3, 0, 4, 6]);
    });

    it('when more is spent than a user holds, then the balance check refuses the whole statement and no balance changes', async () => {
      // Arrange
      const [rich, poor] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 1 }),
      ];

      // Act
      const violation = await violationOf(
        db.knex.transaction((trx) =>
          spendCredits(
            trx,
            new Map([
              [rich.id, 1],
              [poor.id, 2],
            ]),
          ),
        ),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'credits_balance_check' });
      expect(await findCreditBalance(db.knex, rich.id)).toBe(5);
      expect(await findCreditBalance(db.knex, poor.id)).toBe(1);
    });
  });
});
