import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enqueueAnchorRecords,
  listenForAnchoring,
  type AnchorRequest,
  type AnchoringNotifications,
} from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/test-database.js';
import { randomDigest, uniqueId } from './test-data.js';

const databaseUrl = process.env.DATABASE_URL;

function record(): AnchorRequest {
  return {
    networkId: '31337',
    kind: 'evidence',
    recordKey: `0x${randomDigest()}`,
    hash: randomDigest(),
    timestamp: 1_700_000_000,
  };
}

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

  it('when records are queued in a transaction that commits, then the listener hears it once; a rollback and another schema are not heard', async () => {
    // Arrange
    const before = heard.queued;

    // Act
    await db.knex
      .transaction(async (trx) => {
        await enqueueAnchorRecords(trx, [record()]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await enqueueAnchorRecords(other.knex, [record()]);
    await db.knex.transaction(async (trx) => {
      await enqueueAnchorRecords(trx, [record(), record()]);
      await enqueueAnchorRecords(trx, [record()]);
    });

    // Assert: notifications come in commit order, so the commit's is the last to arrive.
    await eventually(() => heard.queued > before);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard.queued).toBe(before + 1);
  });

  it('when records are anchored, then the listener hears they settled; a record only batched is not heard', async () => {
    // Arrange
    const [batched] = await enqueueAnchorRecords(db.knex, [record()]);
    const [anchored] = await enqueueAnchorRecords(db.knex, [record()]);
    const before = heard.settled;

    // Act
    await db.knex('anchor_records').where({ id: batched }).update({ status: 'cancelled' });
    await db.knex('anchor_records').where({ id: anchored }).update({ status: 'anchored' });

    // Assert
    await eventually(() => heard.settled > before);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard.settled).toBe(before + 1);
  });

  it('when its connection is cut, then it connects again, tells both handlers, and hears the next records', async () => {
    // Arrange
    const before = { ...heard };

    // Act
    await db.knex.raw(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?',
      [applicationName],
    );
    await eventually(() => changes.filter((state) => state === 'listening').length >= 2);
    const caughtUp = { ...heard };
    await enqueueAnchorRecords(db.knex, [record()]);

    // Assert
    expect(changes.slice(-2)).toEqual(['lost', 'listening']);
    expect(caughtUp).toEqual({ queued: before.queued + 1, settled: before.settled + 1 });
    await eventually(() => heard.queued === caughtUp.queued + 1);
  });
});
