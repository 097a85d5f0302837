import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCreditBalance, grantCredits, spendCredit } from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from '../src/testing/index.js';
import { givenUser, uniqueId } from './test-data.js';

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
});
