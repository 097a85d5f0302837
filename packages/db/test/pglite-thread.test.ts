import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type PgliteDatabase } from '../src/index.js';
import { PGLITE_START_PARAMS } from '../src/pglite-start-params.js';
import { PgliteThread } from '../src/pglite-thread.js';

// The embedded engine runs on a thread of its own and serves several sessions (knex's pooled
// connections) on its one PostgreSQL session: a transaction must stay whole and alone.
describe('the embedded engine on its own thread', () => {
  let engine: PgliteThread;

  beforeAll(async () => {
    engine = await PgliteThread.start({ dataDir: 'memory://', startParams: PGLITE_START_PARAMS });
    await engine.waitReady;
    await engine.session().query('create table counted (n int primary key)');
  }, 60_000);

  afterAll(async () => {
    await engine.close();
  });

  it('when a session is inside a transaction, then another session waits for it to commit', async () => {
    // Arrange
    const a = engine.session();
    const b = engine.session();
    const order: string[] = [];
    await a.query('begin');
    await a.query('insert into counted values (1)');

    // Act
    const seen = b.query('select count(*)::int as n from counted').then((result) => {
      order.push('b read');
      return result as { rows: { n: number }[] };
    });
    await sleep(50);
    order.push('a commits');
    await a.query('commit');

    // Assert: b's statement ran after the commit, not inside a's transaction
    expect((await seen).rows[0]?.n).toBe(1);
    expect(order).toEqual(['a commits', 'b read']);
    await b.query('delete from counted');
  });

  it('when a session ends inside its transaction, then the transaction is rolled back', async () => {
    // Arrange
    const a = engine.session();
    const b = engine.session();
    await a.query('begin');
    await a.query('insert into counted values (2)');

    // Act
    await a.end();
    const result = (await b.query('select count(*)::int as n from counted')) as {
      rows: { n: number }[];
    };

    // Assert
    expect(result.rows[0]?.n).toBe(0);
  });

  it("when a statement fails, then its error carries the engine's SQLSTATE and constraint", async () => {
    // Arrange
    const a = engine.session();
    await a.query('insert into counted values (3)');

    // Act
    const failure = await a
      .query('insert into counted values (3)')
      .catch((error: unknown) => error);

    // Assert
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: '23505', constraint: 'counted_pkey' });
    await a.query('delete from counted');
  });
});

describe("the embedded engine's heap", () => {
  it('when its thread is collected, then the engine goes on answering', async () => {
    // Arrange
    const engine = await PgliteThread.start({
      dataDir: 'memory://',
      startParams: PGLITE_START_PARAMS,
    });
    try {
      await engine.waitReady;
      const session = engine.session();
      await session.query('select generate_series(1, 100000)');

      // Act
      await engine.collectGarbage();

      // Assert: a collection that blocked the thread would leave this statement unanswered
      const result = (await session.query('select 41 + 1 as n')) as { rows: { n: number }[] };
      expect(result.rows[0]?.n).toBe(42);
    } finally {
      await engine.close();
    }
  }, 60_000);
});

describe('knex on the embedded engine', () => {
  let database: PgliteDatabase;

  beforeAll(async () => {
    database = await openPglite('memory://', undefined);
    await database.knex.raw('create table counter (id int primary key, n int not null)');
    await database.knex('counter').insert({ id: 1, n: 0 });
  }, 60_000);

  afterAll(async () => {
    await database.close();
  });

  it('when transactions read and write the same row at once, then none is lost', async () => {
    // Act: each reads, waits while others start, then writes what it read plus one
    await Promise.all(
      Array.from({ length: 4 }, () =>
        database.knex.transaction(async (trx) => {
          const row = await trx('counter').where({ id: 1 }).first<{ n: number } | undefined>('n');
          await sleep(20);
          await trx('counter')
            .where({ id: 1 })
            .update({ n: (row?.n ?? 0) + 1 });
        }),
      ),
    );

    // Assert
    const row = await database
      .knex('counter')
      .where({ id: 1 })
      .first<{ n: number } | undefined>('n');
    expect(row?.n).toBe(4);
  });

  it('when statements come from several requests at once, then each gets its own answer', async () => {
    // Act
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        database.knex.raw<{ rows: { i: number }[] }>('select ?::int as i', [i]),
      ),
    );

    // Assert
    expect(answers.map((answer) => answer.rows[0]?.i)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });
});

describe('a statement waiting for another session on the embedded engine', () => {
  it('when it waits longer than allowed, then it is refused and the transaction goes on', async () => {
    // Arrange
    const engine = await PgliteThread.start({
      dataDir: 'memory://',
      startParams: PGLITE_START_PARAMS,
      sessionWaitMs: 300,
    });
    try {
      await engine.waitReady;
      const a = engine.session();
      const b = engine.session();
      await a.query('begin');
      await a.query('create table waited (n int)');

      // Act: b waits for a's transaction, which (like a caller awaiting b) does not end
      const refusal = await b.query('select 1').catch((error: unknown) => error);
      await a.query('insert into waited values (1)');
      await a.query('commit');

      // Assert
      expect(refusal).toBeInstanceOf(Error);
      expect((refusal as Error).message).toMatch(/waited 300 ms for another session/);
      const result = (await b.query('select count(*)::int as n from waited')) as {
        rows: { n: number }[];
      };
      expect(result.rows[0]?.n).toBe(1);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
