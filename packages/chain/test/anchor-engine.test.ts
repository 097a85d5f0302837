import { randomUUID } from 'node:crypto';
import { createUser, findCreditBalance, savePlan } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import type { LocalChain } from '@trustpoint/contracts';
import { freePort } from '@trustpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine, AnchorFailedError } from '../src/anchoring/anchor-engine.js';
import type { AnchorRequest } from '../src/anchoring/anchor-record.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { RecordReader } from '../src/reading/record-reader.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import {
  eventCountsByKey,
  networkFor,
  onChainRecord,
  registerDirectly,
  startTestChain,
} from './support/test-chain.js';

async function enqueueEach(engine: AnchorEngine, db: TestDatabase, requests: AnchorRequest[]) {
  // One transaction per record, as the APIs do.
  return Promise.all(
    requests.map((request) => db.knex.transaction((trx) => engine.enqueue(trx, request))),
  );
}

/** Queues the records, runs the engine until each is anchored or refused, and stops it. */
async function anchorEach(engine: AnchorEngine, db: TestDatabase, requests: AnchorRequest[]) {
  const ids = await enqueueEach(engine, db, requests);
  engine.start();
  const outcomes = await Promise.allSettled(ids.map((id) => engine.waitForAnchor(id, 30_000)));
  await engine.stop();
  return { ids, outcomes };
}

describe.each(testBackends())('Anchoring engine on %s', (backend) => {
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

  it('when records are queued, then each is anchored once, in batches, and reads back on chain', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const trustPoints = trustPointRequests(120);
    const evidences = evidenceRequests(80);
    const ids = await enqueueEach(engine, db, [...trustPoints, ...evidences]);

    engine.start();
    const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 60_000)));
    await engine.stop();

    const transactions = new Set(receipts.map((receipt) => receipt.transactionHash));
    expect(transactions.size).toBeLessThanOrEqual(Math.ceil(120 / 50) + Math.ceil(80 / 50) + 2);
    expect(
      receipts.slice(0, 120).every((r) => r.smartContract === network.trustPointRegistry),
    ).toBe(true);
    expect(receipts.slice(120).every((r) => r.smartContract === network.evidenceRepository)).toBe(
      true,
    );
    const counts = await eventCountsByKey(network);
    for (const request of [...trustPoints, ...evidences])
      expect(counts.get(request.recordKey)).toBe(1);
    for (const request of [...trustPoints.slice(0, 5), ...evidences.slice(0, 5)]) {
      expect(await onChainRecord(network, request)).toEqual({ hash: `0x${request.hash}`, type: 0 });
    }
  }, 120_000);

  it('when the chain holds another hash under a key, then that record fails and the rest of its batch anchors', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const requests = evidenceRequests(5);
    const conflicting = requests[2];
    if (!conflicting) throw new Error('five requests');
    await registerDirectly(network, conflicting, `0x${'ab'.repeat(32)}`);
    const { outcomes } = await anchorEach(engine, db, requests);

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const failure = outcomes[2];
    expect(failure?.status === 'rejected' && failure.reason).toBeInstanceOf(AnchorFailedError);
  }, 60_000);

  it('when the chain refuses a paid record for good, then it ends failed with its reason and its payer gets the credit back, once', async () => {
    const payer = `payer-${randomUUID()}`;
    await savePlan(db.knex, { id: 'refunds', name: 'Refunds', networkIds: ['31337'] });
    await createUser(db.knex, {
      id: payer,
      displayName: 'Payer',
      planId: 'refunds',
      initialCredits: 7,
    });
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const requests = trustPointRequests(4).map((request) => ({ ...request, paidBy: payer }));
    const refused = requests.slice(1, 3);
    for (const request of refused) await registerDirectly(network, request, `0x${'ef'.repeat(32)}`);
    const { ids, outcomes } = await anchorEach(engine, db, requests);

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    const failed = await db
      .knex('anchor_records')
      .whereIn('id', ids.slice(1, 3))
      .select('status', 'error');
    expect(failed.map((row: { status: string }) => row.status)).toEqual(['failed', 'failed']);
    expect(failed.every((row: { error: string | null }) => (row.error ?? '').length > 0)).toBe(
      true,
    );
    // Seven credits, none spent here (the APIs spend them): two refunds make nine.
    expect(await findCreditBalance(db.knex, payer)).toBe(9);
    // One refund per record (each names its spend when the record's creation recorded one).
    const refunds = await db
      .knex('credit_movements')
      .where({ user_id: payer, kind: 'refund' })
      .orderBy('id')
      .select('amount', 'balance_after', 'reason');
    expect(refunds).toEqual([
      { amount: 1, balance_after: 8, reason: 'record refused by the chain' },
      { amount: 1, balance_after: 9, reason: 'record refused by the chain' },
    ]);
  }, 60_000);

  it('when a batch sent without simulation reverts, then it is simulated again, the refused record fails and the others anchor', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    engine.start();
    // A first batch: after it, the anchorer sends without simulating.
    const [warmUp] = await enqueueEach(engine, db, evidenceRequests(1));
    if (warmUp === undefined) throw new Error('one id');
    await engine.waitForAnchor(warmUp, 30_000);
    // Three records: a batch registry writes so few in slots, which refuse another hash under a
    // key (a data batch is checked for such records only when simulated).
    const requests = evidenceRequests(3);
    const conflicting = requests[1];
    if (!conflicting) throw new Error('three requests');
    await registerDirectly(network, conflicting, `0x${'cd'.repeat(32)}`);

    const ids = await enqueueEach(engine, db, requests);
    const outcomes = await Promise.allSettled(ids.map((id) => engine.waitForAnchor(id, 30_000)));
    await engine.stop();

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const reverted = await db.knex('anchor_batches').where({ status: 'failed', error: 'reverted' });
    expect(reverted.length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('when a record is re-sent after being anchored elsewhere, then it is settled without a second event', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const [request] = trustPointRequests(1);
    if (!request) throw new Error('one request');
    await registerDirectly(network, request, `0x${request.hash}`);
    const [id] = await enqueueEach(engine, db, [request]);
    if (id === undefined) throw new Error('one id');

    engine.start();
    const receipt = await engine.waitForAnchor(id, 30_000);
    await engine.stop();

    expect(receipt.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await eventCountsByKey(network)).get(request.recordKey)).toBe(1);
  }, 60_000);

  it('when the node is unreachable, then waiting ends with networkUnavailable in time and the record can be withdrawn', async () => {
    const deadNetwork = networkFor(`http://127.0.0.1:${String(await freePort())}`, network);
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([deadNetwork]), {
      timing: { retryMaxMs: 200, rpcTimeoutMs: 500 },
    });
    const [request] = evidenceRequests(1);
    if (!request) throw new Error('one request');
    const [id] = await enqueueEach(engine, db, [request]);
    if (id === undefined) throw new Error('one id');
    engine.start();
    const started = Date.now();

    const error = await engine.waitForAnchor(id, 1_500).catch((reason: unknown) => reason);
    const waited = Date.now() - started;
    await engine.stop();

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('networkUnavailable');
    expect(waited).toBeGreaterThanOrEqual(1_400);
    expect(waited).toBeLessThan(5_000);
    expect(await db.knex.transaction((trx) => engine.cancel(trx, id))).toBe(true);
    expect(await db.knex.transaction((trx) => engine.cancel(trx, id))).toBe(false);
  }, 30_000);

  it('when asked to anchor on an unconfigured network, then it is a validation error naming networkId', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]), { anchoring: false });
    const [request] = evidenceRequests(1, '999');
    if (!request) throw new Error('one request');

    const error = await db.knex
      .transaction((trx) => engine.enqueue(trx, request))
      .catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('validation');
    expect((error as DomainError).errors?.[0]?.field).toBe('networkId');
  });

  it('when verifying, then a recorded trustpoint is found with its hash and type and an unknown one is not', async () => {
    const certId = 'did:trustpoint:certid:reader-test';
    const { trustPointKey } = await import('@trustpoint/domain');
    const hash = 'c'.repeat(64);
    // After every other test's records: a batch registry takes slot records only in buckets no
    // data batch has passed.
    const timestamp = 9_000_000_000_000;
    await registerDirectly(
      network,
      {
        networkId: network.networkId,
        kind: 'trustpoint',
        recordKey: trustPointKey(certId, timestamp),
        hash,
        timestamp,
      },
      `0x${hash}`,
      1,
    );
    const reader = new RecordReader();

    expect(await reader.readTrustPoint(network, certId, timestamp)).toEqual({
      found: true,
      hash,
      type: 'Revocation',
    });
    expect(await reader.readTrustPoint(network, certId, timestamp + 1)).toEqual({ found: false });
    const dead = networkFor(`http://127.0.0.1:${String(await freePort())}`, network);
    expect((await reader.readTrustPoint(dead, certId, timestamp)).found).toBe('unreachable');
  });
});
