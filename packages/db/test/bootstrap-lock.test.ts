import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findAnyAdministrator, takeBootstrapLock } from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';

describe.each(testBackends())('the first administrator lock on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend, { poolMax: 3 });
  });
  afterAll(() => db.close());

  it('when a transaction took the lock and ended, then the next one takes it at once', async () => {
    // The lock is the transaction's: it ends with it, committed or rolled back.
    await db.knex.transaction((trx) => takeBootstrapLock(trx));
    await db.knex
      .transaction(async (trx) => {
        await takeBootstrapLock(trx);
        throw new Error('rolled back');
      })
      .catch(() => undefined);

    const admin = await db.knex.transaction(async (trx) => {
      await takeBootstrapLock(trx);
      return findAnyAdministrator(trx);
    });

    expect(admin).toBeUndefined();
  });

  it.skipIf(backend !== 'postgres')(
    'when another init-admin holds the lock, then taking it waits until that transaction ends',
    async () => {
      // Arrange: one transaction holds the lock (a third connection watches).
      const holder = await db.knex.transaction();
      await takeBootstrapLock(holder);
      let taken = false;
      try {
        // Act: a second one asks for it.
        const second = db.knex.transaction(async (trx) => {
          await takeBootstrapLock(trx);
          taken = true;
        });

        // Assert: it waits on the lock (seen in pg_locks) until the first commits, then takes it.
        await vi.waitFor(
          async () => {
            const waiting = await db.knex.raw<{ rows: { count: string }[] }>(
              `select count(*) as count from pg_locks
                where locktype = 'advisory' and not granted and database =
                  (select oid from pg_database where datname = current_database())`,
            );
            expect(Number(waiting.rows[0]?.count)).toBeGreaterThan(0);
          },
          { timeout: 10_000, interval: 50 },
        );
        expect(taken).toBe(false);
        await holder.commit();
        await second;
        expect(taken).toBe(true);
      } finally {
        if (!holder.isCompleted()) await holder.rollback();
      }
    },
  );
});
