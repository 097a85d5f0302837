import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalChain } from '@trustpoint/contracts';
import {
  chainWriterProvider,
  encodeRecordBatch,
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  EVIDENCE_BUCKET_BITS,
  HARDHAT_DEV_KEY,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/contracts';
import { evidenceKey, trustPointKey } from '@trustpoint/domain';
import { NonceManager, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanRegistries, type ChainRecord } from '../src/reconciling/registry-scan.js';
import { startTestChain } from './support/test-chain.js';

const hashOf = (n: number) => n.toString(16).padStart(64, '0');
const prefixOf = (key: string) => BigInt(key) >> 130n;

/** What a test compares: a record without its transaction. */
const shape = (record: ChainRecord) => ({
  kind: record.kind,
  recordKey: record.recordKey,
  keyPrefix: record.keyPrefix,
  hash: record.hash,
  trustPointType: record.trustPointType,
  contract: record.contract,
  inDataBatch: record.dataContract !== undefined,
});

describe('scanRegistries', () => {
  let chain: LocalChain;

  beforeAll(async () => {
    ({ chain } = await startTestChain());
  }, 60_000);

  afterAll(async () => {
    await chain.stop();
  });

  it('when both generations of registries hold records by event, in slots and in data batches, then one scan reads every one of them, a record in two batches twice', async () => {
    // Arrange
    const provider = chainWriterProvider(chain.url, chain.writeHeaders);
    const signer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
    const account = await signer.getAddress();
    // Both generations deployed here, whichever the test chain's own deployment is.
    const oldRegistry = await new TrustPointRegistry__factory(signer).deploy(account, account);
    const oldRepository = await new EvidenceRepository__factory(signer).deploy(account, account);
    const batchRegistry = await new TrustPointBatchRegistry__factory(signer).deploy(
      account,
      account,
    );
    const batchRepository = await new EvidenceBatchRepository__factory(signer).deploy(
      account,
      account,
    );
    const addressOf = async (contract: { getAddress(): Promise<string> }) =>
      (await contract.getAddress()).toLowerCase();
    const old = await addressOf(oldRegistry);
    const oldEvidence = await addressOf(oldRepository);
    const registryAddress = await addressOf(batchRegistry);
    const repositoryAddress = await addressOf(batchRepository);
    const certId = 'did:trustpoint:certid:scan';
    const at = 1_767_225_600_000;
    const tp = (i: number, type: number) => ({
      key: trustPointKey(certId, at + i),
      hash: `0x${hashOf(100 + i)}`,
      type,
      timestamp: at + i,
    });
    const assetHash = 'b'.repeat(64);
    const ev = (i: number) => ({
      key: evidenceKey(assetHash, 1_767_225_600 + i),
      hash: `0x${hashOf(200 + i)}`,
      timestamp: 1_767_225_600 + i,
    });
    await (
      await oldRegistry.registerTrustPoints([
        { key: tp(0, 1).key, hash: tp(0, 1).hash, trustPointType: 1 },
        { key: tp(1, 0).key, hash: tp(1, 0).hash, trustPointType: 0 },
      ])
    ).wait();
    await (await oldRepository.registerEvidence(ev(0).key, ev(0).hash)).wait();
    await (await batchRegistry.registerTrustPoint(tp(2, 2).key, tp(2, 2).hash, 2, at + 2)).wait();
    await (await batchRepository.registerEvidence(ev(1).key, ev(1).hash, ev(1).timestamp)).wait();
    const first = encodeRecordBatch([tp(3, 0), tp(4, 1), tp(5, 2)], TRUSTPOINT_BUCKET_BITS);
    await (await batchRegistry.registerTrustPointBatch(first.records, first.buckets)).wait();
    // The same record again, with another: a second batch, not the first one re-sent.
    const second = encodeRecordBatch([tp(4, 1), tp(6, 0)], TRUSTPOINT_BUCKET_BITS);
    await (await batchRegistry.registerTrustPointBatch(second.records, second.buckets)).wait();
    const evidences = encodeRecordBatch([ev(2), ev(3)], EVIDENCE_BUCKET_BITS);
    await (
      await batchRepository.registerEvidenceBatch(evidences.records, evidences.buckets)
    ).wait();
    const head = await provider.getBlockNumber();
    provider.destroy();

    // Act: two blocks a query, so that the records come from many ranges.
    const records = await scanRegistries({
      rpcUrl: chain.url,
      contracts: [old, oldEvidence, registryAddress, repositoryAddress],
      toBlock: head,
      blockRange: 2,
    });

    // Assert
    const byEvent = (
      record: { key: string; hash: string },
      kind: 'trustpoint' | 'evidence',
      type: number | null,
      contract: string,
    ) => ({
      kind,
      recordKey: record.key,
      keyPrefix: prefixOf(record.key),
      hash: record.hash.slice(2),
      trustPointType: type,
      contract,
      inDataBatch: false,
    });
    const inBatch = (
      record: { key: string; hash: string },
      kind: 'trustpoint' | 'evidence',
      type: number | null,
      contract: string,
    ) => ({ ...byEvent(record, kind, type, contract), recordKey: undefined, inDataBatch: true });
    const sortKey = (record: ReturnType<typeof shape>) =>
      `${record.contract}${record.keyPrefix.toString(16).padStart(40, '0')}${String(record.inDataBatch)}`;
    const sorted = (list: ReturnType<typeof shape>[]) =>
      [...list].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
    expect(sorted(records.map(shape))).toEqual(
      sorted([
        byEvent(tp(0, 1), 'trustpoint', 1, old),
        byEvent(tp(1, 0), 'trustpoint', 0, old),
        byEvent(ev(0), 'evidence', null, oldEvidence),
        byEvent(tp(2, 2), 'trustpoint', 2, registryAddress),
        byEvent(ev(1), 'evidence', null, repositoryAddress),
        inBatch(tp(3, 0), 'trustpoint', 0, registryAddress),
        inBatch(tp(4, 1), 'trustpoint', 1, registryAddress),
        inBatch(tp(5, 2), 'trustpoint', 2, registryAddress),
        inBatch(tp(4, 1), 'trustpoint', 1, registryAddress),
        inBatch(tp(6, 0), 'trustpoint', 0, registryAddress),
        inBatch(ev(2), 'evidence', null, repositoryAddress),
        inBatch(ev(3), 'evidence', null, repositoryAddress),
      ]),
    );
    expect(new Set(records.map((record) => record.transactionHash)).size).toBe(7);
    expect(records.every((record) => record.blockNumber > 0 && record.blockNumber <= head)).toBe(
      true,
    );
  });

  it('when a node refuses wide log queries, as hosted providers do, then the ranges are halved until it answers and nothing is missed', async () => {
    // Arrange: a relay to the chain that refuses eth_getLogs over more than 3 blocks.
    const provider = chainWriterProvider(chain.url, chain.writeHeaders);
    const signer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
    const account = await signer.getAddress();
    const registry = await new TrustPointRegistry__factory(signer).deploy(account, account);
    const keys = [1, 2, 3, 4, 5, 6].map((i) => trustPointKey('did:trustpoint:certid:wide', i));
    for (const key of keys) {
      await (await registry.registerTrustPoint(key, `0x${hashOf(7)}`, 0)).wait();
    }
    const head = await provider.getBlockNumber();
    provider.destroy();
    let refused = 0;
    const relay = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const call = JSON.parse(body) as {
          id: number;
          method: string;
          params: { fromBlock: string; toBlock: string }[];
        };
        const range = call.params[0];
        if (
          call.method === 'eth_getLogs' &&
          range !== undefined &&
          Number(range.toBlock) - Number(range.fromBlock) + 1 > 3
        ) {
          refused += 1;
          response.setHeader('content-type', 'application/json');
          response.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: call.id,
              error: { code: -32005, message: 'query exceeds max block range 3' },
            }),
          );
          return;
        }
        void fetch(chain.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }).then(async (answer) => {
          response.setHeader('content-type', 'application/json');
          response.end(await answer.text());
        });
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const { port } = relay.address() as AddressInfo;

    try {
      // Act
      const records = await scanRegistries({
        rpcUrl: `http://127.0.0.1:${String(port)}`,
        contracts: [await registry.getAddress()],
        toBlock: head,
        blockRange: 100,
      });

      // Assert
      expect(refused).toBeGreaterThan(0);
      expect(records.map((record) => record.recordKey).sort()).toEqual([...keys].sort());
    } finally {
      await new Promise((resolve) => relay.close(resolve));
    }
  });

  it('when no registry is given, then nothing is read', async () => {
    // Act
    const records = await scanRegistries({ rpcUrl: chain.url, contracts: [], toBlock: 0 });

    // Assert
    expect(records).toEqual([]);
  });
});
