import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { trustPointKey } from '@trustpoint/domain';
import {
  chainWriterProvider,
  deployTrustpoint,
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  HARDHAT_DEV_KEY,
  MAX_BATCH_RECORDS,
  type LocalChain,
} from '@trustpoint/contracts';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { AnchorRequest } from '../src/anchoring/anchor-record.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { RecordReader } from '../src/reading/record-reader.js';
import { evidenceRequests, trustPointRequests } from './support/records.js';
import {
  contractsOf,
  eventCountsByKey,
  networkFor,
  onChainRecord,
  startTestChain,
} from './support/test-chain.js';

async function enqueueEach(engine: AnchorEngine, db: TestDatabase, requests: AnchorRequest[]) {
  return Promise.all(
    requests.map((request) => db.knex.transaction((trx) => engine.enqueue(trx, request))),
  );
}

/** Queues every record first (a long queue), then runs the engine until all are anchored. */
async function anchorQueued(engine: AnchorEngine, db: TestDatabase, requests: AnchorRequest[]) {
  const ids = await enqueueEach(engine, db, requests);
  engine.start();
  const receipts = await Promise.all(ids.map((id) => engine.waitForAnchor(id, 60_000)));
  await engine.stop();
  return { ids, receipts };
}

/** What each batch transaction called, by the records it settled. */
async function batchesOf(db: TestDatabase, ids: number[]) {
  return db
    .knex('anchor_records as r')
    .join('anchor_batches as b', 'b.id', 'r.batch_id')
    .whereIn('r.id', ids)
    .groupBy('b.id')
    .orderBy('b.id')
    .select<{ records: number | string }[]>(db.knex.raw('count(*) as records'));
}

describe.each(testBackends())('Anchoring on batch registries on %s', (backend) => {
  let chain: LocalChain;
  let network: NetworkConfig;
  let db: TestDatabase;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain('batches'));
    // No batch size configured: the anchorer fills data contracts (511 records).
    network = { ...network, batch: { maxWaitMs: 20 } };
    db = await openTestDatabase(backend);
  }, 60_000);

  afterAll(async () => {
    await db.close();
    await chain.stop();
  });

  it('when the queue is long, then batches are packed to what one data contract holds and every record reads back once', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const evidences = evidenceRequests(MAX_BATCH_RECORDS + 200);
    const trustPoints = trustPointRequests(300);

    const { ids, receipts } = await anchorQueued(engine, db, [...evidences, ...trustPoints]);

    const evidenceBatches = await batchesOf(db, ids.slice(0, evidences.length));
    expect(evidenceBatches.map((batch) => Number(batch.records))).toEqual([MAX_BATCH_RECORDS, 200]);
    expect(
      (await batchesOf(db, ids.slice(evidences.length))).map((b) => Number(b.records)),
    ).toEqual([300]);
    const counts = await eventCountsByKey(network);
    for (const request of [...evidences, ...trustPoints]) {
      expect(counts.get(request.recordKey)).toBe(1);
    }
    for (const request of [...evidences.slice(-3), ...trustPoints.slice(0, 3)]) {
      expect(await onChainRecord(network, request)).toEqual({ hash: `0x${request.hash}`, type: 0 });
    }
    // A batch whose records span many 16-second buckets (711 seconds of evidences) fits its gas limit.
    const { provider } = contractsOf(network);
    const mined = await provider.getTransactionReceipt(receipts[0]?.transactionHash ?? '');
    provider.destroy();
    expect(mined?.status).toBe(1);
  }, 120_000);

  it('when a batch is small, then its records go in slots; when larger, in a data contract', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const [single] = trustPointRequests(1);
    if (!single) throw new Error('one request');
    const revocation: AnchorRequest = { ...single, trustPointType: 1 };
    const ten = evidenceRequests(10);

    await anchorQueued(engine, db, [revocation]);
    await anchorQueued(engine, db, ten);

    const { batchRegistry, batchRepository, provider } = contractsOf(network);
    const slotEvents = await batchRegistry.queryFilter(
      batchRegistry.filters.TrustPointRecorded(),
      0,
      'latest',
    );
    const dataEvents = await batchRepository.queryFilter(
      batchRepository.filters.EvidenceBatchRecorded(),
      0,
      'latest',
    );
    provider.destroy();
    expect(slotEvents.map((event) => event.args[0].toLowerCase())).toContain(revocation.recordKey);
    expect(dataEvents.at(-1)?.args[2]).toBe(10n);
    expect(await onChainRecord(network, revocation)).toEqual({
      hash: `0x${revocation.hash}`,
      type: 1,
    });
    for (const request of ten) {
      expect((await onChainRecord(network, request))?.hash).toBe(`0x${request.hash}`);
    }
  }, 60_000);

  it('when a data batch already passed a record’s time bucket, then the record goes in a data contract instead of a refused slot write', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const [late] = evidenceRequests(1);
    const later = evidenceRequests(4);
    if (!late) throw new Error('one request');
    // A data batch of records after `late`'s bucket closes its bucket to slot records.
    const { batchRepository, provider } = contractsOf(network);
    const batch = encodeRecordBatch(
      later.map((request) => ({
        key: request.recordKey,
        hash: `0x${request.hash}`,
        timestamp: request.timestamp,
      })),
      EVIDENCE_BUCKET_BITS,
    );
    await (await batchRepository.registerEvidenceBatch(batch.records, batch.buckets)).wait();
    const before = await batchRepository.batchCount();
    provider.destroy();

    const { ids } = await anchorQueued(engine, db, [late]);

    const reverted = await db
      .knex('anchor_records as r')
      .join('anchor_batches as b', 'b.id', 'r.batch_id')
      .where('r.id', ids[0] ?? 0)
      .select('b.status');
    expect(reverted).toEqual([{ status: 'anchored' }]);
    const { batchRepository: after, provider: again } = contractsOf(network);
    expect(await after.batchCount()).toBe(before + 1n);
    again.destroy();
    expect((await onChainRecord(network, late))?.hash).toBe(`0x${late.hash}`);
  }, 60_000);

  it('when a deployment moves to batch registries, then records anchored on the earlier slot registries keep their contract and read back from it', async () => {
    const provider = chainWriterProvider(chain.url, chain.writeHeaders);
    const earlier = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider), {
      registries: 'slots',
    });
    provider.destroy();
    const slotNetwork = networkFor(chain.url, { ...earlier, rpcHeaders: chain.writeHeaders });
    const certId = `did:trustpoint:certid:moved-${String(Date.now())}`;
    const [template] = trustPointRequests(2);
    if (!template) throw new Error('a request');
    const requestAt = (timestamp: number, hash: string): AnchorRequest => ({
      networkId: network.networkId,
      kind: 'trustpoint',
      recordKey: trustPointKey(certId, timestamp),
      hash,
      timestamp,
      trustPointType: 0,
    });
    const before = requestAt(template.timestamp, 'a'.repeat(64));
    const after = requestAt(template.timestamp + 1, 'b'.repeat(64));

    const first = await anchorQueued(
      new AnchorEngine(db.knex, new NetworkRegistry([slotNetwork])),
      db,
      [before],
    );
    const second = await anchorQueued(
      new AnchorEngine(db.knex, new NetworkRegistry([network])),
      db,
      [after],
    );

    expect(first.receipts[0]?.smartContract).toBe(earlier.trustPointRegistry);
    expect(second.receipts[0]?.smartContract).toBe(network.trustPointRegistry);
    const stored = await db
      .knex('anchor_records as r')
      .join('anchor_batches as b', 'b.id', 'r.batch_id')
      .whereIn('r.id', [...first.ids, ...second.ids])
      .orderBy('r.id')
      .select<{ record_timestamp: number | string }[]>('r.record_timestamp');
    expect(stored.map((row) => Number(row.record_timestamp))).toEqual([
      before.timestamp,
      after.timestamp,
    ]);
    // Read through the network as configured now (batch registries), each from its own contract.
    const reader = new RecordReader();
    expect(
      await reader.readTrustPoint(
        network,
        certId,
        before.timestamp,
        first.receipts[0]?.smartContract,
      ),
    ).toEqual({ found: true, hash: before.hash, type: 'Evidence' });
    expect(await reader.readTrustPoint(network, certId, after.timestamp)).toEqual({
      found: true,
      hash: after.hash,
      type: 'Evidence',
    });
    expect(await reader.readTrustPoint(network, certId, before.timestamp)).toEqual({
      found: false,
    });
  }, 60_000);
});
