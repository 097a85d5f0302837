import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { DomainError } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { AnchorRequest } from '../src/anchoring/anchor-record.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import { networkFor } from './support/test-chain.js';

/**
 * Queuing is all database: the engine does not anchor here (`anchoring: false`), so no chain node
 * is needed, and no other test's engine can take these records off the queue.
 */
function queuingEngine(knex: TestDatabase['knex']): AnchorEngine {
  const network = networkFor('http://127.0.0.1:1', {
    trustPointRegistry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    evidenceRepository: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  });
  return new AnchorEngine(knex, new NetworkRegistry([network]), { anchoring: false });
}

/** The key as a client might spell it: hex digits in upper case. */
function upperCased(request: AnchorRequest): AnchorRequest {
  return { ...request, recordKey: `0x${request.recordKey.slice(2).toUpperCase()}` };
}

/** A queued record's row, as far as queuing decides it. */
interface QueuedRow {
  id: number;
  network_id: string;
  kind: string;
  record_key: string;
  hash: string;
  trustpoint_type: number | null;
  status: string;
  batch_id: number | null;
}

const queuedColumns = [
  'id',
  'network_id',
  'kind',
  'record_key',
  'hash',
  'trustpoint_type',
  'status',
  'batch_id',
] as const;

describe.each(testBackends())('Anchoring engine enqueueAll on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  it('when records of both kinds are queued together, then the ids come in the order given and each row is queued with its lowercased key', async () => {
    // Arrange
    const engine = queuingEngine(db.knex);
    const [evidence, otherEvidence] = evidenceRequests(2);
    const [revocation, untyped] = trustPointRequests(2);
    if (!evidence || !otherEvidence || !revocation || !untyped) throw new Error('four requests');
    const given: AnchorRequest[] = [
      evidence,
      { ...revocation, trustPointType: 1 },
      // No type given: queued as an Evidence trustpoint (0).
      {
        networkId: '31337',
        kind: 'trustpoint',
        recordKey: untyped.recordKey,
        hash: untyped.hash,
        timestamp: untyped.timestamp,
      },
      otherEvidence,
    ];
    const requests = given.map(upperCased);

    // Act
    const ids = await db.knex.transaction((trx) => engine.enqueueAll(trx, requests));

    // Assert
    const rows = await db
      .knex('anchor_records')
      .whereIn('id', ids)
      .select<QueuedRow[]>(queuedColumns);
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(new Set(ids).size).toBe(requests.length);
    expect(ids.map((id) => byId.get(id))).toEqual(
      requests.map((request, index): QueuedRow => ({
        id: ids[index] ?? 0,
        network_id: '31337',
        kind: request.kind,
        record_key: request.recordKey.toLowerCase(),
        hash: request.hash,
        trustpoint_type: request.kind === 'trustpoint' ? (request.trustPointType ?? 0) : null,
        status: 'queued',
        batch_id: null,
      })),
    );
  });

  it('when one key is queued as a trustpoint and as an evidence, then each kind gets its own id, in the order given', async () => {
    // Arrange
    const engine = queuingEngine(db.knex);
    const [trustpoint] = trustPointRequests(1);
    if (!trustpoint) throw new Error('one request');
    const evidence: AnchorRequest = {
      networkId: '31337',
      kind: 'evidence',
      recordKey: trustpoint.recordKey,
      hash: trustpoint.hash,
      timestamp: trustpoint.timestamp,
    };

    // Act
    const ids = await db.knex.transaction((trx) => engine.enqueueAll(trx, [evidence, trustpoint]));

    // Assert
    const rows = await db
      .knex('anchor_records')
      .whereIn('id', ids)
      .select<QueuedRow[]>('id', 'kind');
    const kindOf = new Map(rows.map((row) => [row.id, row.kind]));
    expect(ids.map((id) => kindOf.get(id))).toEqual(['evidence', 'trustpoint']);
  });

  it('when one record names an unknown network, then it is a validation error and none of the records is queued', async () => {
    // Arrange
    const engine = queuingEngine(db.knex);
    const requests = [...trustPointRequests(2), ...evidenceRequests(1, '999')];

    // Act: outside a transaction, so that anything inserted before the check would stay.
    const error = await engine.enqueueAll(db.knex, requests).catch((reason: unknown) => reason);

    // Assert
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('validation');
    expect((error as DomainError).errors?.[0]?.field).toBe('networkId');
    const queued = await db
      .knex('anchor_records')
      .whereIn(
        'record_key',
        requests.map((request) => request.recordKey),
      )
      .count<{ count: number }[]>('* as count')
      .first();
    expect(Number(queued?.count)).toBe(0);
  });

  it('when the list is empty, then nothing is queued and no id returned', async () => {
    // Arrange
    const engine = queuingEngine(db.knex);

    // Act
    const ids = await db.knex.transaction((trx) => engine.enqueueAll(trx, []));

    // Assert
    expect(ids).toEqual([]);
  });
  it("when records are queued by the caller's own statement (queueingWith), then an unknown network is refused before it, and this process hears of the records once when the transaction commits and not when it rolls back", async () => {
    // Arrange
    const engine = queuingEngine(db.knex);
    let committed = 0;
    const stop = engine.observe({
      committedHere: () => {
        committed += 1;
      },
    });

    // Act
    const refused = await db.knex
      .transaction(async (trx) => {
        await Promise.resolve();
        engine.queueingWith(trx, [...trustPointRequests(1), ...evidenceRequests(1, '999')]);
      })
      .catch((reason: unknown) => reason);
    const heardAfterRefusal = committed;
    await db.knex
      .transaction(async (trx) => {
        engine.queueingWith(trx, trustPointRequests(3));
        await Promise.resolve();
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    const heardAfterRollback = committed;
    await db.knex.transaction(async (trx) => {
      await Promise.resolve();
      engine.queueingWith(trx, trustPointRequests(3));
      engine.queueingWith(trx, []);
    });
    await new Promise((resolve) => setImmediate(resolve));
    stop();

    // Assert
    expect((refused as DomainError).code).toBe('validation');
    expect(heardAfterRefusal).toBe(0);
    expect(heardAfterRollback).toBe(0);
    expect(committed).toBe(1);
  });

  it('when records are queued by a statement on its own (queueingBy), then an unknown network is refused before it runs, a failed statement is not heard of, and one that ends well is heard of once, after it ended', async () => {
    // Arrange
    const engine = queuingEngine(db.knex);
    let committed = 0;
    const stop = engine.observe({
      committedHere: () => {
        committed += 1;
      },
    });
    let ran = 0;
    const statement = (outcome: 'ends well' | 'fails') => async () => {
      ran += 1;
      await Promise.resolve();
      if (outcome === 'fails') throw new Error('the statement failed');
      return committed;
    };

    // Act
    const refused = await engine
      .queueingBy(
        [...trustPointRequests(1), ...evidenceRequests(1, '999')],
        {},
        statement('ends well'),
      )
      .catch((reason: unknown) => reason);
    const ranAfterRefusal = ran;
    const failed = await engine
      .queueingBy(trustPointRequests(2), {}, statement('fails'))
      .catch((reason: unknown) => reason);
    const heardAfterFailure = committed;
    const heardWhileRunning = await engine.queueingBy(
      trustPointRequests(2),
      {},
      statement('ends well'),
    );
    stop();

    // Assert
    expect((refused as DomainError).code).toBe('validation');
    expect(ranAfterRefusal).toBe(0);
    expect((failed as Error).message).toBe('the statement failed');
    expect(heardAfterFailure).toBe(0);
    expect(heardWhileRunning).toBe(0);
    expect(committed).toBe(1);
  });
});
