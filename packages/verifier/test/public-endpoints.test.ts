import { describe, expect, it } from 'vitest';

import {
  contentCertificateHash,
  encodeGetEvidenceCall,
  encodeGetTrustPointCall,
  encodeRevocationOfCall,
  EVIDENCE_NOT_FOUND_SELECTOR,
  evidenceKey,
  PUBLIC_CHAINS,
  PublicChainsError,
  readPublicChains,
  TRUST_POINT_NOT_FOUND_SELECTOR,
  trustPointKey,
  verifyCertificate,
  verifyEvidence,
  type PublicChain,
  type Trust,
} from '../src/index.js';
import {
  evidenceRecordedLog,
  evidenceResult,
  FAKE_GENESIS,
  fetchOf,
  trustPointRecordedLog,
  trustPointResult,
  type FakeNode,
} from './support/fake-node.js';

// Public endpoints stand in as fake nodes: the real ones cannot be reached from a test, and what
// is checked here is how their answers are counted. The pages' and the CLI's tests run the same
// cases against real Hardhat nodes.

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f99';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const STATUS_REGISTRY = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
const TRANSACTION = `0x${'ab'.repeat(32)}`;
const TIMESTAMP = 1767225600001;
const BLOCK_TIME = 1767225603;
const ENDPOINT_A = 'https://a.rpc.test';
const ENDPOINT_B = 'https://b.rpc.test';
const ENDPOINT_C = 'https://c.rpc.test';
const OWN_NODE = 'http://own.test:8545';
const content = { order: 'public endpoints' };
const hash = contentCertificateHash(content);
const OTHER_HASH = contentCertificateHash({ order: 'another record' });

const certificate = {
  certID: CERT_ID,
  data: {
    name: 'Order',
    description: '',
    type: 'content',
    content,
    issuer: 'did:user:u1',
    issuedOn: TIMESTAMP - 1,
    hash,
  },
  metadata: [
    {
      type: 'Evidence',
      networkId: 31337,
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
      trustPointHash: hash,
      timestamp: TIMESTAMP,
    },
  ],
};

const word = (value: number | bigint) => BigInt(value).toString(16).padStart(64, '0');
const notRevoked = `0x${word(0)}${word(0)}${word(0)}`;
const revoked = `0x${word(1)}${word(TIMESTAMP + 5_000)}${word(BLOCK_TIME + 60)}`;

/** A node of the pinned chain holding `recordHash` under the certificate's key. */
function endpoint(
  url: string,
  options: {
    recordHash?: string;
    status?: string;
    blockNumber?: number;
    genesisHash?: string;
  } = {},
): FakeNode {
  const recordHash = options.recordHash ?? hash;
  return {
    url,
    notFoundSelector: TRUST_POINT_NOT_FOUND_SELECTOR,
    ...(options.genesisHash === undefined ? {} : { genesisHash: options.genesisHash }),
    records: new Map([
      [encodeGetTrustPointCall(CERT_ID, TIMESTAMP), trustPointResult(recordHash, 0)],
      [encodeRevocationOfCall(CERT_ID), options.status ?? notRevoked],
    ]),
    receipts: new Map([
      [
        TRANSACTION,
        {
          status: '0x1',
          blockNumber: options.blockNumber ?? 7,
          blockTime: BLOCK_TIME,
          logs: [trustPointRecordedLog(CONTRACT, trustPointKey(CERT_ID, TIMESTAMP), recordHash, 0)],
        },
      ],
    ]),
  };
}

const chain = (endpoints: [url: string, operator: string][]): PublicChain[] => [
  {
    name: 'Test chain',
    chainId: 31337,
    genesisHash: FAKE_GENESIS,
    endpoints: endpoints.map(([url, operator]) => ({ url, operator })),
  },
];
const TWO_OPERATORS = chain([
  [ENDPOINT_A, 'Operator A'],
  [ENDPOINT_B, 'Operator B'],
]);

const pinned: Trust['networks'][number] = {
  networkId: '31337',
  chainId: 31337,
  genesisHash: FAKE_GENESIS,
  registries: [
    { kind: 'trustPointRegistry', address: CONTRACT },
    { kind: 'statusRegistry', address: STATUS_REGISTRY },
  ],
  pinnedBy: 'https://issuer.example',
};
const trust: Trust = { networks: [pinned] };

describe('public endpoints of well-known chains', () => {
  it('when two endpoints of different operators on the pinned chain agree, then the record counts, verified with the chain time, and both are named', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: TWO_OPERATORS,
      fetch: fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B)),
    });

    expect(result.verdict).toBe('verified');
    expect(result.trustpoints[0]).toMatchObject({
      verdict: 'anchored',
      node: ENDPOINT_A,
      nodes: [ENDPOINT_A, ENDPOINT_B],
      chainTime: { blockNumber: 7, timestamp: BLOCK_TIME * 1000 },
    });
    expect(result.status[0]).toMatchObject({
      outcome: 'notRevoked',
      nodes: [ENDPOINT_A, ENDPOINT_B],
    });
  });

  it('when one endpoint answers another record, then the endpoints disagree: not verified, each answer named, none picked', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: TWO_OPERATORS,
      fetch: fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B, { recordHash: OTHER_HASH })),
    });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.verdict).toBe('disagreement');
    expect(result.trustpoints[0]?.detail).toContain('disagree');
    expect(result.trustpoints[0]?.answers).toEqual([
      { node: ENDPOINT_A, answer: `hash ${hash}, type Evidence` },
      { node: ENDPOINT_B, answer: `hash ${OTHER_HASH}, type Evidence` },
    ]);
  });

  it('when one endpoint is on another chain with the same chain id, then it is refused and named, and one endpoint alone is not enough', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: TWO_OPERATORS,
      fetch: fetchOf(
        endpoint(ENDPOINT_A),
        endpoint(ENDPOINT_B, { genesisHash: `0x${'99'.repeat(32)}` }),
      ),
    });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.verdict).toBe('unreachable');
    expect(result.trustpoints[0]?.detail).toContain('at least 2 operators must agree');
    expect(result.trustpoints[0]?.attempts).toContainEqual({
      url: ENDPOINT_B,
      error: expect.stringContaining('another chain with the same chain id') as string,
    });
  });

  it('when the two endpoints that agree are run by one operator, then they count once: not verified', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: chain([
        [ENDPOINT_A, 'Operator A'],
        [ENDPOINT_B, 'Operator A'],
      ]),
      fetch: fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B)),
    });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.detail).toContain('of one operator');
  });

  it('when the endpoints tell different blocks for the transaction, then the chain time is not believed: disagreement', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: TWO_OPERATORS,
      fetch: fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B, { blockNumber: 8 })),
    });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.verdict).toBe('disagreement');
    expect(result.trustpoints[0]?.detail).toContain('different receipts');
  });

  it('when the endpoints disagree on the revocation status, then the revocation is not checked, never verified', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: TWO_OPERATORS,
      fetch: fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B, { status: revoked })),
    });

    expect(result.verdict).toBe('revocationUnchecked');
    expect(result.status[0]?.outcome).toBe('unchecked');
    expect(result.status[0]?.detail).toContain('disagree');
  });

  it('when a third endpoint disagrees with two that agree, then nothing is picked', async () => {
    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust,
      publicEndpoints: chain([
        [ENDPOINT_A, 'Operator A'],
        [ENDPOINT_B, 'Operator B'],
        [ENDPOINT_C, 'Operator C'],
      ]),
      fetch: fetchOf(
        endpoint(ENDPOINT_A),
        endpoint(ENDPOINT_B),
        endpoint(ENDPOINT_C, { recordHash: OTHER_HASH }),
      ),
    });

    expect(result.trustpoints[0]?.verdict).toBe('disagreement');
  });

  it('when the user gave a node for the network, then only that node is asked: public endpoints never replace it', async () => {
    const fetch = fetchOf(
      endpoint(OWN_NODE, { recordHash: OTHER_HASH }),
      endpoint(ENDPOINT_A),
      endpoint(ENDPOINT_B),
    );

    const result = await verifyCertificate({
      certificate,
      rpc: { '31337': [OWN_NODE] },
      trust,
      publicEndpoints: TWO_OPERATORS,
      fetch,
    });

    expect(result.verdict).toBe('mismatch');
    expect(result.trustpoints[0]?.node).toBe(OWN_NODE);
    expect(fetch.calls.filter((url) => url !== OWN_NODE)).toEqual([]);
  });

  it('when no public endpoints are given, then none is asked: the network has no node', async () => {
    const fetch = fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B));

    const result = await verifyCertificate({ certificate, rpc: {}, trust, fetch });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.detail).toContain('no JSON-RPC URL given for network 31337');
    expect(fetch.calls).toEqual([]);
  });

  it('when the pinned network has another genesis than the well-known chain of its id, then its public endpoints are not used', async () => {
    const fetch = fetchOf(endpoint(ENDPOINT_A), endpoint(ENDPOINT_B));

    const result = await verifyCertificate({
      certificate,
      rpc: {},
      trust: {
        networks: trust.networks.map((network) => ({
          ...network,
          genesisHash: `0x${'42'.repeat(32)}`,
        })),
      },
      publicEndpoints: TWO_OPERATORS,
      fetch,
    });

    expect(result.trustpoints[0]?.detail).toContain('no public endpoint is known for its chain');
    expect(fetch.calls).toEqual([]);
  });

  it('when an evidence is read through two agreeing endpoints, then it is verified and both are named', async () => {
    const assetHash = 'ab'.repeat(32);
    const evidenceNode = (url: string): FakeNode => ({
      url,
      notFoundSelector: EVIDENCE_NOT_FOUND_SELECTOR,
      records: new Map([[encodeGetEvidenceCall(assetHash, 1767225600), evidenceResult(hash)]]),
      receipts: new Map([
        [
          TRANSACTION,
          {
            status: '0x1',
            blockNumber: 9,
            blockTime: 1767225601,
            logs: [evidenceRecordedLog(CONTRACT, evidenceKey(assetHash, 1767225600), hash)],
          },
        ],
      ]),
    });

    const result = await verifyEvidence({
      evidence: {
        assetHash,
        networkId: 31337,
        timestamp: 1767225600,
        hash,
        smartContract: CONTRACT,
        transactionHash: TRANSACTION,
      },
      rpc: {},
      trust: {
        networks: [
          {
            ...pinned,
            registries: [{ kind: 'evidenceRepository', address: CONTRACT }],
          },
        ],
      },
      publicEndpoints: TWO_OPERATORS,
      fetch: fetchOf(evidenceNode(ENDPOINT_A), evidenceNode(ENDPOINT_B)),
    });

    expect(result.verdict).toBe('verified');
    expect(result.evidences[0]?.nodes).toEqual([ENDPOINT_A, ENDPOINT_B]);
  });
});

describe('two pins of one network naming the same registry on two chains', () => {
  it("when the record is on the second pin's chain, then it is found there and verified, the first chain's node refused for it", async () => {
    // Two instances started on this machine deploy at the same addresses on two chains of id 31337.
    const OTHER_GENESIS = `0x${'77'.repeat(32)}`;
    const earlier: Trust['networks'][number] = {
      ...pinned,
      genesisHash: OTHER_GENESIS,
      pinnedBy: 'http://127.0.0.1:8080',
    };
    const earlierNode: FakeNode = {
      ...endpoint(ENDPOINT_A, { genesisHash: OTHER_GENESIS }),
      records: new Map([[encodeRevocationOfCall(CERT_ID), notRevoked]]),
    };

    const result = await verifyCertificate({
      certificate,
      rpc: { '31337': [ENDPOINT_A, ENDPOINT_B] },
      trust: { networks: [earlier, pinned] },
      fetch: fetchOf(earlierNode, endpoint(ENDPOINT_B)),
    });

    expect(result.verdict).toBe('verified');
    expect(result.trustpoints[0]).toMatchObject({
      node: ENDPOINT_B,
      trustedThrough: 'https://issuer.example',
    });
  });
});

describe('the list of public chains', () => {
  it('when the built-in list is read back, then it is valid: each chain distinct, with endpoints of at least two operators', () => {
    const chains = readPublicChains(JSON.parse(JSON.stringify({ chains: PUBLIC_CHAINS })));

    expect(chains).toEqual(PUBLIC_CHAINS);
    expect(new Set(chains.map((known) => known.chainId)).size).toBe(chains.length);
    for (const known of chains) {
      expect(new Set(known.endpoints.map((e) => e.operator)).size).toBeGreaterThanOrEqual(2);
      expect(known.endpoints.every((e) => e.url.startsWith('https://'))).toBe(true);
    }
  });

  it('when an operator list has a bad genesis hash or an endpoint without operator, then it is refused naming the member', () => {
    const good = { chains: [{ ...TWO_OPERATORS[0] }] };

    expect(readPublicChains(good)).toEqual(TWO_OPERATORS);
    expect(() =>
      readPublicChains({ chains: [{ ...TWO_OPERATORS[0], genesisHash: '0x12' }] }),
    ).toThrow(new PublicChainsError('$.chains[0].genesisHash must be 0x and 64 hex characters'));
    expect(() =>
      readPublicChains({
        chains: [{ ...TWO_OPERATORS[0], endpoints: [{ url: ENDPOINT_A }] }],
      }),
    ).toThrow('$.chains[0].endpoints[0].operator must name who runs it');
    expect(() => readPublicChains([])).toThrow('$.chains must be an array');
  });
});
