// `batch.sendWhenIdle`: on a chain that mines each transaction as it arrives, a record queued while
// no batch of ours waits to be mined goes at once rather than waiting `maxWaitMs` for company.
import type { LocalChain } from '@trustpoint/contracts';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import { startTestChain } from './support/test-chain.js';

/** Far beyond every test's timeout: a batch that waits for it is never sent during a test. */
const LONG_WAIT_MS = 600_000;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

describe.each(testBackends())('Sending when idle on %s', (backend) => {
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

  async function statusOf(id: number): Promise<string | undefined> {
    const row = await db
      .knex('anchor_records')
      .where({ id })
      .first<{ status: string } | undefined>('status');
    return row?.status;
  }

  it('when a record is queued on an idle network that sends when idle, then it is anchored without waiting for a batch to fill or for maxWaitMs', async () => {
    // Arrange
    const engine = new AnchorEngine(
      db.knex,
      new NetworkRegistry([
        { ...network, batch: { maxSize: 50, maxWaitMs: LONG_WAIT_MS, sendWhenIdle: true } },
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
    expect(await statusOf(id)).toBe('anchored');
  }, 60_000);

  it('when records are queued on a network that does not send when idle, then they wait for maxWaitMs although nothing is in flight', async () => {
    // Arrange
    const engine = new AnchorEngine(
      db.knex,
      new NetworkRegistry([{ ...network, batch: { maxSize: 50, maxWaitMs: LONG_WAIT_MS } }]),
    );
    engine.start();

    // Act
    const [record] = evidenceRequests(1);
    if (!record) throw new Error('one record');
    const id = await db.knex.transaction((trx) => engine.enqueue(trx, record));
    // The engine is woken on commit and looks at once: long enough for several looks.
    await sleep(1_500);
    const status = await statusOf(id);
    await engine.stop();
    // Withdrawn, so that no later engine of this database anchors it.
    await db.knex('anchor_records').where({ id, status: 'queued' }).update({ status: 'cancelled' });

    // Assert
    expect(status).toBe('queued');
  }, 60_000);
});
