import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  prunePinFailures,
  releasePinAttempt,
  reservePinAttempt,
  type PinFailureBudget,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { uniqueId } from './test-data.js';

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;

function certificateBudget(limit = 3, subject = uniqueId('certificate')): PinFailureBudget {
  return { scope: 'certificate', subject, limit, windowMs: HOUR };
}

function addressBudget(limit = 5, subject = uniqueId('address')): PinFailureBudget {
  return { scope: 'address', subject, limit, windowMs: HOUR };
}

describe.each(testBackends())('PIN failure budgets on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend, { poolMax: 20 });
  });

  afterAll(async () => {
    await db.close();
  });

  async function failuresOf(budget: PinFailureBudget): Promise<number | undefined> {
    const row = await db
      .knex('pin_failures')
      .where({ scope: budget.scope, subject: budget.subject })
      .first<{ failures: number } | undefined>('failures');
    return row?.failures;
  }

  it('when attempts reach the limit, then the next is refused until the window ends', async () => {
    // Arrange
    const budget = certificateBudget(3);

    // Act
    const first = await reservePinAttempt(db.knex, [budget], NOW);
    const second = await reservePinAttempt(db.knex, [budget], NOW + 1_000);
    const third = await reservePinAttempt(db.knex, [budget], NOW + 2_000);
    const fourth = await reservePinAttempt(db.knex, [budget], NOW + 3_000);

    // Assert
    expect(first).toEqual({
      granted: true,
      held: [{ scope: 'certificate', subject: budget.subject, windowEndsAt: NOW + HOUR }],
      startedWindow: true,
    });
    expect(second).toMatchObject({ granted: true, startedWindow: false });
    expect(third).toMatchObject({ granted: true, startedWindow: false });
    expect(fourth).toEqual({ granted: false, retryAt: NOW + HOUR });
    expect(await failuresOf(budget)).toBe(3);
  });

  it('when one of the budgets is spent, then none of them is charged', async () => {
    // Arrange
    const spentCertificate = certificateBudget(1);
    const address = addressBudget(5);
    await reservePinAttempt(db.knex, [spentCertificate], NOW);

    // Act
    const refused = await reservePinAttempt(db.knex, [spentCertificate, address], NOW + 60_000);

    // Assert
    expect(refused).toEqual({ granted: false, retryAt: NOW + HOUR });
    expect(await failuresOf(spentCertificate)).toBe(1);
    expect(await failuresOf(address)).toBeUndefined();
  });

  it('when several budgets are spent, then the retry time is the latest of their windows', async () => {
    // Arrange
    const certificate = certificateBudget(1);
    const address = addressBudget(1);
    await reservePinAttempt(db.knex, [address], NOW);
    await reservePinAttempt(db.knex, [certificate], NOW + 10_000);

    // Act
    const refused = await reservePinAttempt(db.knex, [certificate, address], NOW + 20_000);

    // Assert
    expect(refused).toEqual({ granted: false, retryAt: NOW + 10_000 + HOUR });
  });

  it('when an attempt is released, then it no longer counts', async () => {
    // Arrange
    const certificate = certificateBudget(2);
    const address = addressBudget(2);
    await reservePinAttempt(db.knex, [certificate, address], NOW);
    const right = await reservePinAttempt(db.knex, [certificate, address], NOW + 1_000);
    if (!right.granted) throw new Error('expected the second attempt to be counted');

    // Act
    await releasePinAttempt(db.knex, right.held);
    const third = await reservePinAttempt(db.knex, [certificate, address], NOW + 2_000);
    const fourth = await reservePinAttempt(db.knex, [certificate, address], NOW + 3_000);

    // Assert
    expect(third.granted).toBe(true);
    expect(fourth).toEqual({ granted: false, retryAt: NOW + HOUR });
    expect(await failuresOf(certificate)).toBe(2);
    expect(await failuresOf(address)).toBe(2);
  });

  it('when the window has ended, then counting starts over in a new window', async () => {
    // Arrange
    const budget = certificateBudget(1);
    const earlier = await reservePinAttempt(db.knex, [budget], NOW);
    await reservePinAttempt(db.knex, [budget], NOW + 1_000);

    // Act
    const later = await reservePinAttempt(db.knex, [budget], NOW + HOUR);
    if (!earlier.granted) throw new Error('expected the first attempt to be counted');
    await releasePinAttempt(db.knex, earlier.held);

    // Assert
    expect(later).toEqual({
      granted: true,
      held: [{ scope: 'certificate', subject: budget.subject, windowEndsAt: NOW + 2 * HOUR }],
      startedWindow: true,
    });
    // Giving back an attempt of the ended window does not credit the new one.
    expect(await failuresOf(budget)).toBe(1);
  });

  it('when many attempts arrive at once, then exactly the limit is counted', async () => {
    // Arrange
    const certificate = certificateBudget(10);
    const addresses = Array.from({ length: 4 }, () => addressBudget(100));

    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        reservePinAttempt(db.knex, [certificate, addresses[i % 4] as PinFailureBudget], NOW),
      ),
    );

    // Assert
    expect(outcomes.filter((outcome) => outcome.granted)).toHaveLength(10);
    expect(await failuresOf(certificate)).toBe(10);
    const perAddress = await Promise.all(addresses.map(failuresOf));
    expect(perAddress.reduce((sum, count) => (sum ?? 0) + (count ?? 0), 0)).toBe(10);
  });

  it('when attempts on many certificates from one address arrive at once, then the address budget holds without deadlocks', async () => {
    // Arrange
    const address = addressBudget(15);
    const certificates = Array.from({ length: 10 }, () => certificateBudget(3));

    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        reservePinAttempt(db.knex, [certificates[i % 10] as PinFailureBudget, address], NOW),
      ),
    );

    // Assert
    expect(outcomes.filter((outcome) => outcome.granted)).toHaveLength(15);
    expect(await failuresOf(address)).toBe(15);
  });

  it('when pruned, then only budgets whose window ended are deleted, at most the number asked', async () => {
    // Arrange: far in the future, so that the other tests' rows have all ended by then.
    const later = NOW + 100 * HOUR;
    const ended = [certificateBudget(), addressBudget(), certificateBudget()];
    const current = certificateBudget();
    for (const budget of ended) await reservePinAttempt(db.knex, [budget], later - HOUR);
    await reservePinAttempt(db.knex, [current], later - 1_000);
    await prunePinFailures(db.knex, later - 2 * HOUR);

    // Act
    const first = await prunePinFailures(db.knex, later, 2);
    const rest = await prunePinFailures(db.knex, later);
    const none = await prunePinFailures(db.knex, later);

    // Assert
    expect(first).toBe(2);
    expect(rest).toBe(1);
    expect(none).toBe(0);
    for (const budget of ended) expect(await failuresOf(budget)).toBeUndefined();
    expect(await failuresOf(current)).toBe(1);
  });
});
