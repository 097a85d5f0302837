import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCreditBalance, isTransientConflict, retryTransientConflicts } from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser } from './test-data.js';

/** A database error as both drivers raise it: the SQLSTATE in `code`. */
function databaseError(code: string): Error {
  return Object.assign(new Error(`database error ${code}`), { code });
}

/** A transaction that fails with these errors, one per attempt, then answers 'done'. */
function failingFirst(errors: Error[]) {
  let calls = 0;
  const transaction = () => {
    const error = errors[calls];
    calls += 1;
    return error === undefined ? Promise.resolve('done') : Promise.reject(error);
  };
  return { transaction, calls: () => calls };
}

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('isTransientConflict', () => {
  it('when the error is a deadlock or a serialization failure, then it is transient, and nothing else is', () => {
    // Arrange
    const errors: unknown[] = [
      databaseError('40P01'),
      databaseError('40001'),
      databaseError('23505'),
      { code: 40001 },
      new Error('40P01'),
      '40P01',
      null,
      undefined,
    ];

    // Act
    const transient = errors.map(isTransientConflict);

    // Assert
    expect(transient).toEqual([true, true, false, false, false, false, false, false]);
  });
});

describe('retryTransientConflicts', () => {
  it('when the transaction deadlocks and then hits a serialization failure, then it is run again and the later success returned', async () => {
    // Arrange
    const attempt = failingFirst([databaseError('40P01'), databaseError('40001')]);

    // Act
    const result = await retryTransientConflicts(attempt.transaction);

    // Assert
    expect(result).toBe('done');
    expect(attempt.calls()).toBe(3);
  });

  it('when the transaction fails with another error, then that error is thrown without a retry', async () => {
    // Arrange
    const uniqueViolation = databaseError('23505');
    const attempt = failingFirst([uniqueViolation]);

    // Act
    const running = retryTransientConflicts(attempt.transaction);

    // Assert
    await expect(running).rejects.toBe(uniqueViolation);
    expect(attempt.calls()).toBe(1);
  });

  it('when every attempt conflicts, then it stops after `attempts` runs with the last error', async () => {
    // Arrange
    const errors = [databaseError('40001'), databaseError('40P01'), databaseError('40001')];
    const attempt = failingFirst([...errors, databaseError('40001')]);

    // Act
    const running = retryTransientConflicts(attempt.transaction, 3);

    // Assert
    await expect(running).rejects.toBe(errors[2]);
    expect(attempt.calls()).toBe(3);
  });
});

describe.each(testBackends())('retryTransientConflicts on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  // PGlite has one connection, so its transactions run one after the other and cannot deadlock.
  it.runIf(backend === 'postgres')(
    'when two transactions lock two rows in opposite order, then the retried deadlock victim runs again and both commit',
    async () => {
      // Arrange
      const [first, second] = [
        await givenUser(db.knex, { credits: 10 }),
        await givenUser(db.knex, { credits: 10 }),
      ];
      const retriedHoldsFirst = deferred();
      const otherHoldsSecond = deferred();
      const otherCommitted = deferred();
      const addCredit = (trx: Knex.Transaction, userId: string) =>
        trx('credits')
          .where('user_id', userId)
          .update({ balance: trx.raw('balance + 1') });
      let attempts = 0;

      // Act
      const retried = retryTransientConflicts(() =>
        db.knex.transaction(async (trx) => {
          attempts += 1;
          // A retry that ran before the other transaction took `first` (the victim's lock on it
          // gone, the other not yet scheduled) would take it first and deadlock again: the test
          // is of one retry, so the retry starts once the other has committed.
          if (attempts > 1) await otherCommitted.promise;
          // The first to check for a deadlock breaks it: this one, so that the victim is known.
          await trx.raw("set local deadlock_timeout = '50ms'");
          await addCredit(trx, first.id);
          if (attempts === 1) {
            retriedHoldsFirst.resolve();
            await otherHoldsSecond.promise;
          }
          await addCredit(trx, second.id);
        }),
      );
      const other = db.knex.transaction(async (trx) => {
        await trx.raw("set local deadlock_timeout = '10s'");
        await retriedHoldsFirst.promise;
        await addCredit(trx, second.id);
        otherHoldsSecond.resolve();
        await addCredit(trx, first.id);
      });
      void other.then(otherCommitted.resolve, () => undefined);
      await Promise.all([retried, other]);

      // Assert
      expect(attempts).toBe(2);
      expect(await findCreditBalance(db.knex, first.id)).toBe(12);
      expect(await findCreditBalance(db.knex, second.id)).toBe(12);
    },
  );
});
