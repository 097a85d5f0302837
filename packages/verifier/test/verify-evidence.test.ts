import { describe, expect, it } from 'vitest';

import {
  assetHash,
  encodeGetEvidenceCall,
  EVIDENCE_NOT_FOUND_SELECTOR,
  evidenceHash,
  evidenceKey,
  verifyEvidence,
  type Trust,
} from '../src/index.js';
import {
  evidenceRecordedLog,
  evidenceResult,
  FAKE_GENESIS,
  fetchOf,
  type FakeNode,
} from './support/fake-node.js';

const CONTRACT = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const NODE_URL = 'http://node.test:8545';
const asset = { assetId: 'pallet-42', data: { id: 'P-42', version: '1' } };
const ASSET_HASH = assetHash(asset);
const evidence = {
  metadata: { event: 'shipped' },
  timestamp: 1767225600,
  userOwner: 'did:user:u1',
};
const HASH = evidenceHash(evidence);

const TRANSACTION = `0x${'cd'.repeat(32)}`;

const assetJson = (overrides: { data?: object; metadata?: object } = {}) => ({
  trackID: 'did:trustpoint:trackid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12',
  ...asset,
  ...(overrides.data === undefined ? {} : { data: overrides.data }),
  networkId: 31337,
  assetHash: ASSET_HASH,
  transactions: [
    {
      ...evidence,
      ...(overrides.metadata === undefined ? {} : { metadata: overrides.metadata }),
      hash: HASH,
      status: 'anchored',
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
    },
  ],
  status: 'anchored',
});

const node = (records: [string, number, string][]): FakeNode => ({
  url: NODE_URL,
  notFoundSelector: EVIDENCE_NOT_FOUND_SELECTOR,
  records: new Map(
    records.map(([key, timestamp, hash]) => [
      encodeGetEvidenceCall(key, timestamp),
      evidenceResult(hash),
    ]),
  ),
  receipts: new Map([
    [
      TRANSACTION,
      {
        status: '0x1',
        blockNumber: 9,
        blockTime: 1767225601,
        logs: records.map(([key, timestamp, hash]) =>
          evidenceRecordedLog(CONTRACT, evidenceKey(key, timestamp), hash),
        ),
      },
    ],
  ]),
});
const rpc = { '31337': [NODE_URL] };
const trust: Trust = {
  networks: [
    {
      networkId: '31337',
      chainId: 31337,
      genesisHash: FAKE_GENESIS,
      registries: [{ kind: 'evidenceRepository', address: CONTRACT }],
      pinnedBy: 'you',
    },
  ],
};

describe('verifyEvidence', () => {
  it('when an asset and its evidence hash by the rules and are on chain, then it is verified', async () => {
    const result = await verifyEvidence({
      evidence: assetJson(),
      rpc,
      trust,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result).toMatchObject({ verified: true, asset: { matches: true } });
    expect(result.evidences[0]).toMatchObject({
      verdict: 'anchored',
      recomputedHash: HASH,
      node: NODE_URL,
    });
  });

  it('when the evidence metadata was changed, then it is a mismatch', async () => {
    const result = await verifyEvidence({
      evidence: assetJson({ metadata: { event: 'lost' } }),
      rpc,
      trust,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result.verdict).toBe('mismatch');
    expect(result.evidences[0]?.verdict).toBe('mismatch');
  });

  it('when the asset data was changed, then its assetHash is wrong and the key is not found', async () => {
    const result = await verifyEvidence({
      evidence: assetJson({ data: { id: 'P-43', version: '1' } }),
      rpc,
      trust,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result.verdict).toBe('mismatch');
    expect(result.asset?.matches).toBe(false);
    expect(result.evidences[0]?.verdict).toBe('notFound');
  });

  it('when a single evidence without metadata is given, then it is checked by its hash', async () => {
    const result = await verifyEvidence({
      evidence: {
        assetHash: ASSET_HASH,
        networkId: 31337,
        timestamp: evidence.timestamp,
        hash: HASH,
        smartContract: CONTRACT,
        transactionHash: TRANSACTION,
      },
      rpc,
      trust,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result.verified).toBe(true);
    expect(result.evidences[0]?.detail).toContain('no metadata');
  });

  it('when the repository is not pinned, then a genuine evidence is untrusted with its chain time shown', async () => {
    const result = await verifyEvidence({
      evidence: assetJson(),
      rpc,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result.verdict).toBe('untrusted');
    expect(result.evidences[0]?.chainTime?.timestamp).toBe(1767225601000);
  });

  it('when the chain has no such evidence, then it is not found', async () => {
    const result = await verifyEvidence({
      evidence: assetJson(),
      rpc,
      trust,
      fetch: fetchOf(node([])),
    });

    expect(result.verdict).toBe('notFound');
  });
});
