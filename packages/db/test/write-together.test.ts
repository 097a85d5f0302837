import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEntriesInsert,
  creditsSpending,
  findCreditBalance,
  listAuditEntries,
  writeAlongside,
  writeTogether,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser, uniqueId } from './test-data.js';

describe.each(testBackends())('writeTogether on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  /** The statements the database was sent while `work` ran. */
  async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const listener = (query: { sql: string }) => sent.push(query.sql);
    db.knex.on('query', listener);
    try {
      await work();
    } finally {
      db.knex.off('query', listener);
    }
    return sent;
  }

  it('when a transaction writes credits and audit entries together, then both are stored by one statement', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 5 });
    const target = uniqueId('thing');

    // Act
    const sent = await statementsOf(() =>
      db.knex.transaction(async (trx) => {
        await writeTogether(trx, [
          creditsSpending(trx, new Map([[user.id, 2]])),
          undefined,
          auditEntriesInsert(trx, [
            { actorId: user.id, requestId: null, action: 'thing.make', target },
            { actorId: user.id, requestId: null, action: 'thing.change', target },
          ]),
        ]);
      }),
    );

    // Assert
    expect(sent.filter((sql) => !/^(begin|commit)/i.test(sql))).toHaveLength(1);
    expect(await findCreditBalance(db.knex, user.id)).toBe(3);
    const { entries } = await listAuditEntries(db.knex, { target, offset: 0, limit: 10 });
    expect(entries.map((entry) => entry.action).sort()).toEqual(['thing.change', 'thing.make']);
  });

  it('when one of the writes fails, then none of them is stored', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 1 });
    const target = uniqueId('thing');

    // Act: spending 2 of 1 credit breaks the balance's check.
    const writing = db.knex.transaction(async (trx) => {
      await writeTogether(trx, [
        auditEntriesInsert(trx, [{ actorId: user.id, requestId: null, action: 'x.y', target }]),
        creditsSpending(trx, new Map([[user.id, 2]])),
      ]);
    });

    // Assert
    await expect(writing).rejects.toThrow();
    expect(await findCreditBalance(db.knex, user.id)).toBe(1);
    expect((await listAuditEntries(db.knex, { target, offset: 0, limit: 10 })).total).toBe(0);
  });

  it('when nothing is to be written, then no statement is sent', async () => {
    // Act
    const sent = await statementsOf(() =>
      writeTogether(db.knex, [undefined, creditsSpending(db.knex, new Map([['nobody', 0]]))]),
    );

    // Assert
    expect(sent).toEqual([]);
  });

  it('when writes go alongside an insert that returns rows, then its rows are answered and the writes stored', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 4 });
    const target = uniqueId('thing');

    // Act
    const rows = await writeAlongside<{ action: string; target: string }>(
      db.knex,
      db
        .knex('audit_log')
        .insert({ action: 'main.insert', target })
        .returning(['action', 'target']),
      [
        creditsSpending(db.knex, new Map([[user.id, 1]])),
        auditEntriesInsert(db.knex, [{ actorId: null, requestId: null, action: 'side', target }]),
      ],
    );

    // Assert
    expect(rows).toEqual([{ action: 'main.insert', target }]);
    expect(await findCreditBalance(db.knex, user.id)).toBe(3);
    expect((await listAuditEntries(db.knex, { target, offset: 0, limit: 10 })).total).toBe(2);
  });
});
