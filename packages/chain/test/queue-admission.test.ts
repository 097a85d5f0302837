import { countPendingAnchorRecords } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import {
  DEFAULT_BLOCK_GAS_LIMIT,
  GAS_PER_RECORD,
  queueCapacity,
} from '../src/networks/queue-capacity.js';
import { evidenceRequests } from './support/records.js';
import { networkFor } from './support/test-chain.js';

const READ_EVERY_MS = 50;

let nextNetworkId = 900_000 + Math.floor(Math.random() * 90_000);

/**
 * An engine that only queues (no chain node), on a network of its own (no other test's records
 * in its queue), whose queue holds `maxQueuedRecords` and drains at 2 records a second.
 */
function queuingEngine(
  knex: TestDatabase['knex'],
  maxQueuedRecords: number,
  readEveryMs = READ_EVERY_MS,
) {
  nextNetworkId += 1;
  const network = {
    ...networkFor('http://127.0.0.1:1', {
      trustPointRegistry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      evidenceRepository: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    }),
    networkId: String(nextNetworkId),
    queue: { maxQueuedRecords, recordsPerSecond: 2 },
  };
  const engine = new AnchorEngine(knex, new NetworkRegistry([network]), {
    anchoring: false,
    queueReadEveryMs: readEveryMs,
  });
  return { engine, networkId: network.networkId };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Past the next read's earliest time: the interval, or three times the last read's duration
 * after it ended, which a loaded machine can stretch to a hundred milliseconds or more.
 */
const PAST_NEXT_READ_MS = 400;

describe('queueCapacity', () => {
  it('when a network names nothing, then the embedded chain figures: 30 M gas a second over 11,000 gas a record, for 30 s', () => {
    // Act
    const capacity = queueCapacity({});

    // Assert
    expect(DEFAULT_BLOCK_GAS_LIMIT).toBe(30_000_000);
    expect(GAS_PER_RECORD).toBe(11_000);
    expect(capacity.recordsPerSecond).toBeCloseTo(2_727.27, 1);
    expect(capacity.maxQueuedRecords).toBe(81_818);
  });

  it('when a network has 2 s blocks and a 60 s anchor timeout, then it drains half as fast and holds twice as long', () => {
    // Act
    const capacity = queueCapacity({ blockTimeMs: 2_000, anchorTimeoutMs: 60_000 });

    // Assert
    expect(capacity.recordsPerSecond).toBeCloseTo(1_363.64, 1);
    expect(capacity.maxQueuedRecords).toBe(81_818);
  });

  it('when the networks file names maxQueuedRecords, then that is the limit, drained at the gas rate', () => {
    // Act
    const capacity = queueCapacity({
      maxQueuedRecords: 500,
      blockGasLimit: 15_000_000,
      blockTimeMs: 12_000,
    });

    // Assert
    expect(capacity.maxQueuedRecords).toBe(500);
    expect(capacity.recordsPerSecond).toBeCloseTo(113.64, 1);
  });
});

describe.each(testBackends())('Queue limit of creations on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  /** Admits one record and queues it in a transaction of its own: whether it was admitted. */
  const create = async (engine: AnchorEngine, networkId: string): Promise<number | DomainError> => {
    const [request] = evidenceRequests(1, networkId);
    if (request === undefined) throw new Error('one request');
    try {
      const admission = await engine.admit(networkId, 1);
      return await admission.during(() =>
        db.knex.transaction((trx) => engine.enqueue(trx, request, { queueWhenNotReady: true })),
      );
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  };

  it('when forty creations come at once on a queue that holds five, then five are queued and the rest refused with networkBusy and Retry-After, before anything is stored', async () => {
    // Arrange
    const { engine, networkId } = queuingEngine(db.knex, 5);

    // Act
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => create(engine, networkId)));

    // Assert
    const refused = outcomes.filter((outcome) => outcome instanceof DomainError);
    expect(outcomes.length - refused.length).toBe(5);
    expect(new Set(refused.map((error) => error.code))).toEqual(new Set(['networkBusy']));
    // One record over the limit, at 2 records a second: one second.
    expect(refused.every((error) => error.retryAfterSeconds === 1)).toBe(true);
    expect(await countPendingAnchorRecords(db.knex, networkId, 1_000)).toBe(5);
  });

  it('when creations keep coming in waves while reads go on, then the queue never holds more than the limit', async () => {
    // Arrange
    const { engine, networkId } = queuingEngine(db.knex, 7);
    const depths: number[] = [];

    // Act: waves across several reads, each wave racing the one before.
    for (let wave = 0; wave < 6; wave += 1) {
      await Promise.all([
        ...Array.from({ length: 5 }, () => create(engine, networkId)),
        countPendingAnchorRecords(db.knex, networkId, 1_000).then((depth) => depths.push(depth)),
      ]);
      await sleep(READ_EVERY_MS / 2);
    }

    // Assert
    expect(await countPendingAnchorRecords(db.knex, networkId, 1_000)).toBe(7);
    expect(Math.max(...depths)).toBeLessThanOrEqual(7);
  });

  it('when another process fills the queue, then this one refuses from its next read, with the time the chain takes to drain the excess, and admits again once the records leave the queue', async () => {
    // Arrange
    const { engine, networkId } = queuingEngine(db.knex, 4);
    expect(await create(engine, networkId)).toEqual(expect.any(Number));
    // Another process's records: queued without this engine's admission.
    const other = await db.knex.transaction((trx) =>
      engine.enqueueAll(trx, evidenceRequests(9, networkId), { queueWhenNotReady: true }),
    );
    await sleep(PAST_NEXT_READ_MS);
    await create(engine, networkId).catch(() => undefined);
    await sleep(PAST_NEXT_READ_MS);

    // Act
    const refused = await create(engine, networkId);
    for (const id of other) await engine.cancel(db.knex, id);
    await sleep(PAST_NEXT_READ_MS);
    await create(engine, networkId).catch(() => undefined);
    await sleep(PAST_NEXT_READ_MS);
    const admitted = await create(engine, networkId);

    // Assert: the read counts up to the limit + 1; two or three records over, at 2 a second.
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('networkBusy');
    expect([1, 2]).toContain((refused as DomainError).retryAfterSeconds);
    expect(admitted).toEqual(expect.any(Number));
  });

  it('when a store rolls back, then its error passes through and its room is given again: the refusal waits for a count', async () => {
    // Arrange
    const { engine, networkId } = queuingEngine(db.knex, 2, 60_000);
    const failure = new Error('the store failed');

    // Act
    const admission = await engine.admit(networkId, 2);
    const passed = await admission
      .during(() => Promise.reject(failure))
      .catch((error: unknown) => error);
    const first = await create(engine, networkId);
    const second = await create(engine, networkId);
    const third = await create(engine, networkId);

    // Assert
    expect(passed).toBe(failure);
    expect(first).toEqual(expect.any(Number));
    expect(second).toEqual(expect.any(Number));
    expect(third).toBeInstanceOf(DomainError);
    expect(await countPendingAnchorRecords(db.knex, networkId, 1_000)).toBe(2);
  });

  it('when the records this process stored leave the queue, then a burst right after is admitted up to the limit, not refused for them', async () => {
    // Arrange: three stored and withdrawn again (as anchoring takes them) within one read interval.
    const { engine, networkId } = queuingEngine(db.knex, 3, 60_000);
    const stored: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const id = await create(engine, networkId);
      if (typeof id !== 'number') throw new Error('admitted');
      stored.push(id);
    }
    for (const id of stored) await engine.cancel(db.knex, id);

    // Act
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => create(engine, networkId)));

    // Assert
    const refused = outcomes.filter((outcome) => outcome instanceof DomainError);
    expect(refused).toHaveLength(3);
    expect(await countPendingAnchorRecords(db.knex, networkId, 1_000)).toBe(3);
  });

  it('when the queue is longer than asked, then the count stops at the bound', async () => {
    // Arrange
    const { engine, networkId } = queuingEngine(db.knex, 100);
    await db.knex.transaction((trx) =>
      engine.enqueueAll(trx, evidenceRequests(12, networkId), { queueWhenNotReady: true }),
    );

    // Act
    const bounded = await countPendingAnchorRecords(db.knex, networkId, 5);
    const whole = await countPendingAnchorRecords(db.knex, networkId, 100);

    // Assert
    expect(bounded).toBe(5);
    expect(whole).toBe(12);
  });
});
