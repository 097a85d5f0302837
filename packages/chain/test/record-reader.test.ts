import type { LocalChain } from '@trustpoint/contracts';
import {
  chainWriterProvider,
  encodeRecordBatch,
  EvidenceBatchRepository__factory,
  EVIDENCE_BUCKET_BITS,
  HARDHAT_DEV_KEY,
  TrustPointBatchRegistry__factory,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/contracts';
import { evidenceKey, trustPointKey } from '@trustpoint/domain';
import { NonceManager, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { RecordReader } from '../src/reading/record-reader.js';
import { contractsOf, startTestChain } from './support/test-chain.js';

describe('RecordReader', () => {
  let chain: LocalChain;
  let network: NetworkConfig;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain('slots'));
  }, 60_000);

  afterAll(async () => {
    await chain.stop();
  });

  it('when a record is held by another registry than the network names now (a batch registry), then it is read from the registry given', async () => {
    const provider = chainWriterProvider(chain.url, chain.writeHeaders);
    const signer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
    const account = await signer.getAddress();
    const batchRegistry = await new TrustPointBatchRegistry__factory(signer).deploy(
      account,
      account,
    );
    const batchRepository = await new EvidenceBatchRepository__factory(signer).deploy(
      account,
      account,
    );
    const certId = 'did:trustpoint:certid:reader-batch';
    const timestamp = 1_767_225_600_123;
    const trustPoints = [0, 1, 2, 3].map((i) => ({
      key: trustPointKey(certId, timestamp + i),
      hash: `0x${String(i + 1).repeat(64)}`,
      type: 2,
      timestamp: timestamp + i,
    }));
    const tp = encodeRecordBatch(trustPoints, TRUSTPOINT_BUCKET_BITS);
    await (await batchRegistry.registerTrustPointBatch(tp.records, tp.buckets)).wait();
    const assetHash = 'a'.repeat(64);
    await (
      await batchRepository.registerEvidence(
        evidenceKey(assetHash, 1_767_225_600),
        `0x${'e'.repeat(64)}`,
        1_767_225_600,
      )
    ).wait();
    const ev = encodeRecordBatch(
      [
        {
          key: evidenceKey(assetHash, 1_767_225_601),
          hash: `0x${'f'.repeat(64)}`,
          timestamp: 1_767_225_601,
        },
      ],
      EVIDENCE_BUCKET_BITS,
    );
    await (await batchRepository.registerEvidenceBatch(ev.records, ev.buckets)).wait();
    // And one record in the network's own (slot) registry, read without naming it.
    const { registry, provider: own } = contractsOf(network);
    await (
      await registry.registerTrustPoint(trustPointKey(certId, timestamp), `0x${'9'.repeat(64)}`, 0)
    ).wait();
    own.destroy();
    provider.destroy();
    const reader = new RecordReader();
    const newRegistry = await batchRegistry.getAddress();
    const newRepository = await batchRepository.getAddress();

    expect(await reader.readTrustPoint(network, certId, timestamp + 3, newRegistry)).toEqual({
      found: true,
      hash: '4'.repeat(64),
      type: 'Signature',
    });
    expect(await reader.readTrustPoint(network, certId, timestamp + 4, newRegistry)).toEqual({
      found: false,
    });
    expect(await reader.readTrustPoint(network, certId, timestamp)).toEqual({
      found: true,
      hash: '9'.repeat(64),
      type: 'Evidence',
    });
    expect(await reader.readEvidence(network, assetHash, 1_767_225_600, newRepository)).toEqual({
      found: true,
      hash: 'e'.repeat(64),
    });
    expect(await reader.readEvidence(network, assetHash, 1_767_225_601, newRepository)).toEqual({
      found: true,
      hash: 'f'.repeat(64),
    });
    expect(await reader.readEvidence(network, assetHash, 1_767_225_602, newRepository)).toEqual({
      found: false,
    });
  }, 60_000);
});
