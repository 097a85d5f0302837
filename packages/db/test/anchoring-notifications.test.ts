import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anchoringAnnouncer,
  listenForAnchoring,
  notifyAnchoring,
  type AnchoringNotifications,
} from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/test-database.js';
import { uniqueId } from './test-data.js';

const databaseUrl = process.env.DATABASE_URL;

/** Resolves once `condition` holds, polling every 10 ms; fails after 5 s. */
async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(!databaseUrl)('anchoring notifications on postgres', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let listening: AnchoringNotifications | undefined;
  const heard = { queued: 0, settled: 0 };
  const changes: string[] = [];
  const applicationName = uniqueId('listener');

  beforeAll(async () => {
    db = await openTestDatabase('postgres');
    // Another database on the same server: its notifications must not reach db's listener.
    other = await openTestDatabase('postgres');
    listening = await listenForAnchoring(
      {
        url: databaseUrl as string,
        schema: db.schema,
        applicationName,
        reconnectMs: 20,
        onConnectionChange: (state) => changes.push(state),
      },
      {
        queued: () => (heard.queued += 1),
        settled: () => (heard.settled += 1),
      },
    );
  });

  afterAll(async () => {
    await listening?.close();
    await other.close();
    await db.close();
  });

  it('when a transaction announces queued records, then the listener hears it once at commit; a rollback and another schema are not heard', async () => {
    // Arrange
    const before = heard.queued;

    // Act
    await db.knex
      .transaction(async (trx) => {
        await notifyAnchoring(trx, 'queued');
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await notifyAnchoring(other.knex, 'queued');
    await db.knex.transaction(async (trx) => {
      await notifyAnchoring(trx, 'queued');
      await notifyAnchoring(trx, 'queued');
    });

    // Assert: notifications come in commit order, so the commit's is the last to arrive.
    await eventually(() => heard.queued > before);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard.queued).toBe(before + 1);
  });

  it('when settled records are announced, then only the settled handler is called', async () => {
    // Arrange
    const before = { ...heard };

    // Act
    await notifyAnchoring(db.knex, 'settled');

    // Assert
    await eventually(() => heard.settled > before.settled);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual({ queued: before.queued, settled: before.settled + 1 });
  });

  it('when an announcer is asked 50 times at once, then it sends two notifications, the second after the first is answered', async () => {
    // Arrange
    const sent: number[] = [];
    const listener = (query: { sql: string }) => {
      if (query.sql.includes('pg_notify')) sent.push(Date.now());
    };
    db.knex.on('query', listener);
    const announcer = anchoringAnnouncer(db.knex);
    const before = heard.queued;

    // Act: the first call sends; the 49 others come while it is in flight.
    for (let i = 0; i < 50; i += 1) announcer.queued();
    const lastCall = Date.now();
    await eventually(() => heard.queued >= before + 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    db.knex.off('query', listener);

    // Assert: one notification, then one more sent after it for the calls made meanwhile.
    expect(sent).toHaveLength(2);
    expect(sent.at(-1)).toBeGreaterThanOrEqual(lastCall);
    expect(heard.queued).toBe(before + 2);
  });

  it('when its connection is cut, then it connects again, tells both handlers, and hears the next announcement', async () => {
    // Arrange
    const before = { ...heard };

    // Act
    await db.knex.raw(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?',
      [applicationName],
    );
    await eventually(() => changes.filter((state) => state === 'listening').length >= 2);
    const caughtUp = { ...heard };
    await notifyAnchoring(db.knex, 'queued');

    // Assert
    expect(changes.slice(-2)).toEqual(['lost', 'listening']);
    expect(caughtUp).toEqual({ queued: before.queued + 1, settled: before.settled + 1 });
    await eventually(() => heard.queued === caughtUp.queued + 1);
  });
});
