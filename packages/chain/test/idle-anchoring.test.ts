// An anchoring engine with nothing to do: it looks at the queue less and less often (up to
// `idlePollMaxMs`), a record queued in this process wakes it once its transaction commits, and on a
// network that sends when idle (`batch.sendWhenIdle`) that record goes at once.
import { anchoringAnnouncer, enqueueAnchorRecord, listenForAnchoring } from '@trustpoint/db';
import type { LocalChain } from '@trustpoint/contracts';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { AnchorerTiming } from '../src/anchoring/network-anchorer.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import { startTestChain } from './support/test-chain.js';

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/** Far beyond every test's timeout: an anchorer with it moves only when woken. */
const NEVER_MS = 600_000;

async function statusOf(db: TestDatabase, id: number): Promise<string | undefined> {
  const row = await db
    .knex('anchor_records')
    .where({ id })
    .first<{ status: string } | undefined>('status');
  return row?.status;
}

/** The statements `db` runs while `during` runs. */
async function statementsDuring(db: TestDatabase, during: () => Promise<void>): Promise<number> {
  let count = 0;
  const counted = () => {
    count += 1;
  };
  db.knex.on('query', counted);
  try {
    await during();
  } finally {
    db.knex.off('query', counted);
  }
  return count;
}

describe.each(testBackends())('Idle anchoring on %s', (backend) => {
  let chain: LocalChain;
  let network: NetworkConfig;
  let db: TestDatabase;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain());
    db = await openTestDatabase(backend);
  }, 60_000);

  afterAll(async () => {
    await db.close();
    await chain.stop();
  });

  /**
   * Runs `test` with an engine of this timing, started `settleMs` before (past its first looks),
   * and stops the engine after it.
   */
  async function whileRunning(
    timing: Partial<AnchorerTiming>,
    settleMs: number,
    test: (engine: AnchorEngine) => Promise<void>,
  ): Promise<void> {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]), { timing });
    engine.start();
    try {
      await sleep(settleMs);
      await test(engine);
    } finally {
      await engine.stop();
    }
  }

  /** Read from the database: a wait on the record would wake the anchorers itself. */
  async function expectAnchored(id: number): Promise<void> {
    await expect.poll(() => statusOf(db, id), { timeout: 20_000, interval: 100 }).toBe('anchored');
  }

  it('when nothing is queued, then the anchorer looks at the queue less and less often, not every 25 ms', async () => {
    // Arrange: past the start's own reads (the registrar's balance, earlier revocations).
    await whileRunning({ pollIntervalMs: 25, idlePollMaxMs: 1_000 }, 1_000, async () => {
      // Act
      const statements = await statementsDuring(db, () => sleep(3_000));

      // Assert: at 25 ms, a sender's look (in-flight batches, each kind's backlog) and a
      // settler's (unsettled batches) would be about 600 statements in 3 s.
      expect(statements).toBeLessThan(60);
    });
  }, 30_000);

  it('when a record is queued in a transaction of this process, then its commit wakes the anchorer, which otherwise would not look again within the test', async () => {
    // Arrange: after its first looks, the anchorer moves only when woken.
    await whileRunning(
      { pollIntervalMs: NEVER_MS, idlePollMaxMs: NEVER_MS },
      500,
      async (engine) => {
        const [request] = evidenceRequests(1);
        if (!request) throw new Error('one request');

        // Act
        const id = await db.knex.transaction((trx) =>
          engine.enqueue(trx, request, { queueWhenNotReady: true }),
        );

        // Assert
        await expectAnchored(id);
      },
    );
  }, 60_000);

  it('when a transaction that queued a record rolls back, then nothing is left to anchor and the anchorer goes on', async () => {
    // Arrange
    await whileRunning(
      { pollIntervalMs: NEVER_MS, idlePollMaxMs: NEVER_MS },
      500,
      async (engine) => {
        const [rolledBack, kept] = evidenceRequests(2);
        if (!rolledBack || !kept) throw new Error('two requests');

        // Act
        let rolledBackId: number | undefined;
        await db.knex
          .transaction(async (trx) => {
            rolledBackId = await engine.enqueue(trx, rolledBack, { queueWhenNotReady: true });
            throw new Error('the request failed after queueing');
          })
          .catch(() => undefined);
        const keptId = await db.knex.transaction((trx) =>
          engine.enqueue(trx, kept, { queueWhenNotReady: true }),
        );

        // Assert
        if (rolledBackId === undefined) throw new Error('queued before the rollback');
        expect(await statusOf(db, rolledBackId)).toBeUndefined();
        await expectAnchored(keptId);
      },
    );
  }, 60_000);

  it('when a record is queued on an idle network that sends when idle, then it is anchored without waiting for a batch to fill or for maxWaitMs', async () => {
    // Arrange
    const engine = new AnchorEngine(
      db.knex,
      new NetworkRegistry([
        { ...network, batch: { maxSize: 50, maxWaitMs: NEVER_MS, sendWhenIdle: true } },
      ]),
    );
    engine.start();

    // Act
    const [record] = trustPointRequests(1);
    if (!record) throw new Error('one record');
    const id = await db.knex.transaction((trx) => engine.enqueue(trx, record));
    const receipt = await engine.waitForAnchor(id, 30_000).finally(() => engine.stop());

    // Assert
    expect(receipt.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await statusOf(db, id)).toBe('anchored');
  }, 60_000);

  it('when records are queued on a network that does not send when idle, then they wait for maxWaitMs although nothing is in flight', async () => {
    // Arrange
    const engine = new AnchorEngine(
      db.knex,
      new NetworkRegistry([{ ...network, batch: { maxSize: 50, maxWaitMs: NEVER_MS } }]),
    );
    engine.start();

    // Act
    const [record] = evidenceRequests(1);
    if (!record) throw new Error('one record');
    const id = await db.knex.transaction((trx) => engine.enqueue(trx, record));
    // The engine is woken on commit and looks at once: long enough for several looks.
    await sleep(1_500);
    const status = await statusOf(db, id);
    await engine.stop();
    // Withdrawn, so that no later engine of this database anchors it.
    await db.knex('anchor_records').where({ id, status: 'queued' }).update({ status: 'cancelled' });

    // Assert
    expect(status).toBe('queued');
  }, 60_000);

  it('when another process queues a record while the anchorer is idle, then it is found at a later look and anchored', async () => {
    // Arrange: idle long enough for the looks to reach their longest wait.
    await whileRunning({ pollIntervalMs: 25, idlePollMaxMs: 400 }, 2_000, async () => {
      const [request] = evidenceRequests(1);
      if (!request) throw new Error('one request');

      // Act: queued straight into the table, as an API process beside this one does.
      const id = await enqueueAnchorRecord(db.knex, request);

      // Assert
      await expectAnchored(id);
    });
  }, 60_000);
});

describe.skipIf(!process.env.DATABASE_URL)(
  'Anchoring processes that hear each other (postgres)',
  () => {
    let chain: LocalChain;
    let network: NetworkConfig;
    let db: TestDatabase;

    beforeAll(async () => {
      ({ chain, network } = await startTestChain());
      db = await openTestDatabase('postgres');
    }, 60_000);

    afterAll(async () => {
      await db.close();
      await chain.stop();
    });

    it('when an API process queues a record and another anchors it, then each hears what the other announces after its commit: the anchorer that would not look again anchors it, and the waiting request is answered', async () => {
      // Arrange: an anchoring process that moves only when woken, and an API process (no
      // anchorers) whose waiting requests would look at their records only after the test.
      const anchoring = new AnchorEngine(db.knex, new NetworkRegistry([network]), {
        timing: { pollIntervalMs: NEVER_MS, idlePollMaxMs: NEVER_MS },
      });
      const api = new AnchorEngine(db.knex, new NetworkRegistry([network]), {
        anchoring: false,
        waitPollMs: NEVER_MS,
      });
      // As the launcher wires role processes: the API process announces its commits and hears
      // settlements; the anchoring process announces settlements and hears commits.
      const apiAnnouncer = anchoringAnnouncer(db.knex);
      const anchoringAnnouncements = anchoringAnnouncer(db.knex);
      api.observe({
        committedHere: () => {
          apiAnnouncer.queued();
        },
      });
      anchoring.observe({
        anchored: () => {
          anchoringAnnouncements.settled();
        },
      });
      const listening = { url: process.env.DATABASE_URL as string, schema: db.schema };
      const listeners = await Promise.all([
        listenForAnchoring(listening, {
          queued: () => {
            anchoring.wake();
          },
        }),
        listenForAnchoring(listening, {
          settled: () => {
            api.settledElsewhere();
          },
        }),
      ]);
      anchoring.start();
      try {
        await sleep(500);
        const [request] = evidenceRequests(1);
        if (!request) throw new Error('one request');

        // Act: queued by the API process, whose own wake reaches no anchorer of its own.
        const id = await db.knex.transaction((trx) =>
          api.enqueue(trx, request, { queueWhenNotReady: true }),
        );
        const receipt = await api.waitForAnchor(id, 20_000);

        // Assert
        expect(receipt).toMatchObject({ recordId: id, networkId: network.networkId });
        expect(await statusOf(db, id)).toBe('anchored');
      } finally {
        await Promise.all(listeners.map((listener) => listener.close()));
        await anchoring.stop();
        await api.stop();
      }
    }, 60_000);
  },
);
