import { describe, expect, it } from 'vitest';

import {
  assetHash,
  assetHashV2,
  encodeGetEvidenceCall,
  EVIDENCE_NOT_FOUND_SELECTOR,
  evidenceHash,
  evidenceKey,
  MAX_LISTED_EVIDENCES,
  verifyEvidence,
  VerifierInputError,
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

  it('when a version 1 asset is verified, then its trackID and owner are shown as claims', async () => {
    const result = await verifyEvidence({
      evidence: { ...assetJson(), owner: 'did:user:u1' },
      rpc,
      trust,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result.verdict).toBe('verified');
    expect(result.asset).toMatchObject({
      hashVersion: 1,
      coverage: {
        covered: ['assetId', 'data'],
        fromChain: ['networkId'],
        unverified: ['trackID', 'status', 'owner'],
      },
    });
    expect(result.evidences[0]?.coverage).toEqual({
      covered: ['timestamp', 'hash', 'metadata', 'userOwner'],
      fromChain: ['smartContract', 'transactionHash'],
      unverified: ['status'],
    });
  });

  it("when an asset's transaction shows a networkId of its own, then one other than the asset's (never read) is a claim, the asset's own is from the chain", async () => {
    // Arrange: a genuine asset whose transaction says it is on network 1; one that says 31337.
    const withNetwork = (networkId: number) => {
      const json = assetJson();
      return { ...json, transactions: [{ ...json.transactions[0], networkId }] };
    };

    // Act
    const [other, same] = await Promise.all(
      [1, 31337].map((networkId) =>
        verifyEvidence({
          evidence: withNetwork(networkId),
          rpc,
          trust,
          fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
        }),
      ),
    );

    // Assert
    expect(other?.evidences[0]?.coverage).toMatchObject({
      fromChain: ['smartContract', 'transactionHash'],
      unverified: expect.arrayContaining(['networkId']) as unknown,
    });
    expect(same?.evidences[0]?.coverage.fromChain).toEqual([
      'networkId',
      'smartContract',
      'transactionHash',
    ]);
  });

  it('when a single evidence names its owner without its metadata, then the owner is a claim', async () => {
    const result = await verifyEvidence({
      evidence: {
        trackID: 'did:trustpoint:trackid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12',
        assetHash: ASSET_HASH,
        networkId: 31337,
        timestamp: evidence.timestamp,
        userOwner: 'did:user:someone-else',
        hash: HASH,
        smartContract: CONTRACT,
        transactionHash: TRANSACTION,
      },
      rpc,
      trust,
      fetch: fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]])),
    });

    expect(result.verified).toBe(true);
    expect(result.evidences[0]?.coverage).toEqual({
      covered: ['assetHash', 'timestamp', 'hash'],
      fromChain: ['networkId', 'smartContract', 'transactionHash'],
      unverified: ['trackID', 'userOwner'],
    });
  });

  it('when metadata is shown without its owner (userOwner deleted to forge it), then it is refused before any node is asked, in an asset listing and alone', async () => {
    const listing = assetJson({ metadata: { event: 'inspected', temperatureOK: true } });
    const forged = {
      ...listing,
      transactions: listing.transactions.map(({ userOwner: _owner, ...rest }) => rest),
    };
    const fetch = fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]]));

    const asListed = verifyEvidence({ evidence: forged, rpc, trust, fetch });
    const alone = verifyEvidence({
      evidence: { ...forged.transactions[0], assetHash: ASSET_HASH, networkId: 31337 },
      rpc,
      trust,
      fetch,
    });

    await expect(asListed).rejects.toThrow(VerifierInputError);
    await expect(asListed).rejects.toThrow('$.transactions[0] shows metadata without userOwner');
    await expect(alone).rejects.toThrow('$ shows metadata without userOwner');
    expect(fetch.calls).toEqual([]);
  });

  it('when an evidence alone lacks its assetHash and networkId (as POST /assets/{trackID}/transactions answers it), then it is refused as missing them, saying what to verify instead', async () => {
    // Arrange
    const answered = { ...evidence, hash: HASH, status: 'anchored' };
    const fetch = fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]]));

    // Act
    const bare = verifyEvidence({ evidence: { data: answered }, rpc, trust, fetch });
    const noNetwork = verifyEvidence({
      evidence: { ...answered, assetHash: ASSET_HASH },
      rpc,
      trust,
      fetch,
    });
    const malformed = verifyEvidence({
      evidence: { ...answered, assetHash: 'ABC', networkId: 31337 },
      rpc,
      trust,
      fetch,
    });

    // Assert
    await expect(bare).rejects.toThrow(VerifierInputError);
    await expect(bare).rejects.toThrow(
      '$ has no assetHash nor networkId: an evidence alone does not say which asset it is of',
    );
    await expect(bare).rejects.toThrow('by its trackID or its JSON (GET /assets/{trackID})');
    await expect(noNetwork).rejects.toThrow('$ has no networkId:');
    // A value that is there but malformed is still named as such.
    await expect(malformed).rejects.toThrow('$.assetHash must be 64 lowercase hex characters');
    expect(fetch.calls).toEqual([]);
  });

  it('when a listing names one evidence twice, then it is refused; past the limit of a listing, refused before any node is asked', async () => {
    const listing = assetJson();
    const twice = { ...listing, transactions: [...listing.transactions, ...listing.transactions] };
    const tooLong = {
      ...listing,
      transactions: Array.from({ length: MAX_LISTED_EVIDENCES + 1 }, (_, index) => ({
        ...listing.transactions[0],
        timestamp: evidence.timestamp + index,
      })),
    };
    const fetch = fetchOf(node([[ASSET_HASH, evidence.timestamp, HASH]]));

    await expect(verifyEvidence({ evidence: twice, rpc, trust, fetch })).rejects.toThrow(
      `$.transactions[1] lists the evidence at timestamp ${String(evidence.timestamp)} again`,
    );
    await expect(verifyEvidence({ evidence: tooLong, rpc, trust, fetch })).rejects.toThrow(
      `$.transactions lists ${String(MAX_LISTED_EVIDENCES + 1)} evidences; one JSON lists at most ${String(MAX_LISTED_EVIDENCES)}`,
    );
    expect(fetch.calls).toEqual([]);
  });

  it('when a listing holds many evidences, then each is checked and the node is asked a bounded number at once', async () => {
    const count = 40;
    const items = Array.from({ length: count }, (_, index) => {
      const shown = {
        metadata: { step: index },
        timestamp: evidence.timestamp + index,
        userOwner: 'did:user:u1',
      };
      return {
        ...shown,
        hash: evidenceHash(shown),
        smartContract: CONTRACT,
        transactionHash: TRANSACTION,
      };
    });
    const fake = node(items.map((item) => [ASSET_HASH, item.timestamp, item.hash]));
    const fetch = fetchOf(fake);
    let inFlight = 0;
    let most = 0;
    const counting = (async (
      input: Parameters<typeof fetch>[0],
      init?: Parameters<typeof fetch>[1],
    ) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return await fetch(input, init);
      } finally {
        inFlight -= 1;
      }
    }) as typeof fetch;

    const result = await verifyEvidence({
      evidence: { ...assetJson(), transactions: items },
      rpc,
      trust,
      fetch: counting,
    });

    expect(result.verdict).toBe('verified');
    expect(result.evidences.map((checked) => checked.timestamp)).toEqual(
      items.map((item) => item.timestamp),
    );
    // 16 evidences read at a time, each one call after another (40 at once before).
    expect(most).toBeLessThanOrEqual(16);
    expect(most).toBeGreaterThan(1);
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

  describe('asset hash version 2', () => {
    const TRACK_ID = 'did:trustpoint:trackid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';
    const OWNER = 'did:user:u1';
    const ASSET_HASH_V2 = assetHashV2({ trackID: TRACK_ID, owner: OWNER, ...asset });
    const assetJsonV2 = (changes: Record<string, unknown> = {}) => ({
      ...assetJson(),
      hashVersion: 2,
      owner: OWNER,
      assetHash: ASSET_HASH_V2,
      ...changes,
    });
    const nodeV2 = () => node([[ASSET_HASH_V2, evidence.timestamp, HASH]]);

    it('when a version 2 asset is on chain under its own key, then it is verified with its trackID and owner covered', async () => {
      const result = await verifyEvidence({
        evidence: assetJsonV2(),
        rpc,
        trust,
        fetch: fetchOf(nodeV2()),
      });

      expect(ASSET_HASH_V2).not.toBe(ASSET_HASH);
      expect(result.verdict).toBe('verified');
      expect(result.asset).toEqual({
        assetId: asset.assetId,
        assetHash: ASSET_HASH_V2,
        hashVersion: 2,
        recomputed: ASSET_HASH_V2,
        matches: true,
        coverage: {
          covered: ['hashVersion', 'trackID', 'owner', 'assetId', 'data'],
          fromChain: ['networkId'],
          unverified: ['status'],
        },
      });
    });

    it.each([
      ['another owner', { owner: 'did:user:u2' }],
      ['another trackID', { trackID: TRACK_ID.replace(/f12$/, 'f13') }],
      ['its hashVersion removed', { hashVersion: undefined }],
      ['another assetId', { assetId: 'pallet-43' }],
    ])('when a version 2 asset is shown with %s, then it is a mismatch', async (_, changes) => {
      const result = await verifyEvidence({
        evidence: assetJsonV2(changes),
        rpc,
        trust,
        fetch: fetchOf(nodeV2()),
      });

      expect(result.verdict).toBe('mismatch');
      expect(result.asset?.matches).toBe(false);
      expect(result.evidences[0]?.verdict).toBe('notFound');
    });

    it('when a version 2 asset has no owner, then the input is refused', async () => {
      await expect(
        verifyEvidence({
          evidence: assetJsonV2({ owner: undefined }),
          rpc,
          trust,
          fetch: fetchOf(nodeV2()),
        }),
      ).rejects.toThrow('$.owner must be a string (hash version 2 covers it)');
    });

    it('when an asset names an unknown hash version, then the input is refused', async () => {
      await expect(
        verifyEvidence({
          evidence: assetJsonV2({ hashVersion: 3 }),
          rpc,
          trust,
          fetch: fetchOf(nodeV2()),
        }),
      ).rejects.toThrow('$.hashVersion 3 is unknown to this verifier (it knows 1 and 2)');
    });
  });
});
