import { CompactSign, exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';

import {
  assetCertificateHash,
  contentCertificateHash,
  encodeGetTrustPointCall,
  encodeRevocationOfCall,
  NEXT_GENERATION_SELECTOR,
  trustPointKey,
  type Trust,
  qualifiedSignaturePayload,
  qualifiedSignatureTrustPointHash,
  revocationTrustPointHash,
  TRUST_POINT_NOT_FOUND_SELECTOR,
  verifyCertificate,
  fileCertificateHash,
  MAX_CERTIFICATE_TRUSTPOINTS,
  VerifierInputError,
  createDisclosableCertificate,
  withholdCertificateFields,
} from '../src/index.js';
import {
  FAKE_GENESIS,
  fetchOf,
  trustPointRecordedLog,
  trustPointResult,
  type FakeNode,
} from './support/fake-node.js';

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const NODE_URL = 'http://node.test:8545';
const DOWN_URL = 'http://down.test:8545';
/** A node that takes a request and never answers (a firewall dropping its packets). */
const SILENT_URL = 'http://silent.test:8545';
const ISSUED_ON = 1767225600000;
const content = { orderId: 4711, total: '1250.00 EUR' };
const hash = contentCertificateHash(content);

function certificate(overrides: { content?: object; metadata?: object[]; type?: string } = {}) {
  return {
    certID: CERT_ID,
    data: {
      name: 'Order',
      description: '',
      type: overrides.type ?? 'content',
      content: overrides.content ?? content,
      issuer: 'did:user:local-user',
      issuedOn: ISSUED_ON,
      hash,
    },
    metadata: overrides.metadata ?? [evidenceItem()],
    access: { public: true },
    status: 'anchored',
  };
}

function evidenceItem(timestamp = ISSUED_ON + 1) {
  return {
    type: 'Evidence',
    networkId: 31337,
    status: 'anchored',
    smartContract: CONTRACT,
    transactionHash: `0x${'ab'.repeat(32)}`,
    trustPointHash: hash,
    timestamp,
  };
}

const TRANSACTION = `0x${'ab'.repeat(32)}`;
const BLOCK_TIME = 1767225603;
const STATUS_REGISTRY = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
const word = (value: number | bigint) => BigInt(value).toString(16).padStart(64, '0');
/** What `revocationOf(certId)` answers: (revoked, timestamp ms, recordedAt s). */
const statusResult = (revokedAt?: { timestamp: number; recordedAt: number }) =>
  revokedAt === undefined
    ? `0x${word(0)}${word(0)}${word(0)}`
    : `0x${word(1)}${word(revokedAt.timestamp)}${word(revokedAt.recordedAt)}`;

/**
 * A node holding the records, all written by TRANSACTION in block 7, and a status registry that
 * answers "not revoked" (or `status`, or nothing when null: the call reverts).
 */
function nodeWith(
  records: [timestamp: number, hash: string, type: number][],
  options: Partial<FakeNode> & { status?: string | null } = {},
): FakeNode {
  const { status, ...rest } = options;
  return {
    url: NODE_URL,
    notFoundSelector: TRUST_POINT_NOT_FOUND_SELECTOR,
    records: new Map([
      ...records.map(([timestamp, recordHash, type]): [string, string] => [
        encodeGetTrustPointCall(CERT_ID, timestamp),
        trustPointResult(recordHash, type),
      ]),
      ...(status === null
        ? []
        : [[encodeRevocationOfCall(CERT_ID), status ?? statusResult()] as [string, string]]),
    ]),
    receipts: new Map([
      [
        TRANSACTION,
        {
          status: '0x1',
          blockNumber: 7,
          blockTime: BLOCK_TIME,
          logs: records.map(([timestamp, recordHash, type]) =>
            trustPointRecordedLog(CONTRACT, trustPointKey(CERT_ID, timestamp), recordHash, type),
          ),
        },
      ],
    ]),
    ...rest,
  };
}

const rpc = { '31337': [NODE_URL] };
const pinned: Trust['networks'][number] = {
  networkId: '31337',
  chainId: 31337,
  genesisHash: FAKE_GENESIS,
  registries: [
    { kind: 'trustPointRegistry', address: CONTRACT },
    { kind: 'statusRegistry', address: STATUS_REGISTRY },
  ],
  pinnedBy: 'you',
};
const trust: Trust = { networks: [pinned] };

describe('verifyCertificate', () => {
  it('when the content hashes to data.hash and the chain holds it, then the evidence is anchored and the certificate verified', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result).toMatchObject({ verified: true, verdict: 'verified', revoked: false });
    expect(result.hash).toMatchObject({ recomputed: hash, matches: true });
    expect(result.trustpoints).toEqual([
      expect.objectContaining({
        verdict: 'anchored',
        node: NODE_URL,
        onChain: { hash, type: 'Evidence' },
      }),
    ]);
  });

  it('when a certificate has no hashVersion, then it verifies under version 1 with its name, description, issuer and dates stated as unverified claims', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result.verdict).toBe('verified');
    expect(result.hash).toMatchObject({
      version: 1,
      covered: ['content'],
      unverified: ['name', 'description', 'issuer', 'issuedOn'],
      withheld: [],
    });
  });

  describe('certificate hash version 2', () => {
    const v2 = createDisclosableCertificate({
      certID: CERT_ID,
      data: {
        type: 'content',
        name: 'Diploma',
        description: 'Mathematics',
        issuer: 'did:user:university',
        issuerOrigin: 'https://trustpoint.example',
        issuedOn: ISSUED_ON,
        expires: ISSUED_ON + 10 * 365 * 86_400_000,
        content: { student: { name: 'Ada', dateOfBirth: '1815-12-10' }, grade: 0, passed: false },
      },
    });
    const issued = {
      ...v2.certificate,
      metadata: [{ ...evidenceItem(), trustPointHash: v2.hash }],
      access: { public: true },
      status: 'anchored',
    };
    // The issuing origin trusted, as `trustpoint trust add https://trustpoint.example` pins it.
    const originTrust: Trust = {
      networks: [{ ...pinned, pinnedBy: 'https://trustpoint.example' }],
      origins: ['https://trustpoint.example'],
    };
    const verify = (copy: unknown) =>
      verifyCertificate({
        certificate: copy,
        rpc,
        trust: originTrust,
        now: ISSUED_ON + 1000,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, v2.hash, 0]])),
      });

    it('when it is verified as issued, then every shown field is covered and nothing is withheld', async () => {
      const result = await verify(issued);

      expect(result.verdict).toBe('verified');
      expect(result.hash).toMatchObject({
        version: 2,
        recomputed: v2.hash,
        matches: true,
        covered: [
          'hashVersion',
          'certID',
          'type',
          'name',
          'description',
          'issuer',
          'issuerOrigin',
          'issuedOn',
          'expires',
          'content',
        ],
        unverified: [],
        withheld: [],
      });
    });

    it.each([
      ['renamed', { name: 'Honorary doctorate' }],
      ['re-described', { description: 'Physics' }],
      ['re-issued', { issuer: 'did:user:someone-else' }],
      ['re-dated', { issuedOn: ISSUED_ON - 86_400_000 }],
      ['given a later expiry', { expires: ISSUED_ON + 50 * 365 * 86_400_000 }],
    ])('when a copy is %s, then the hash and its Evidence are a mismatch', async (_, change) => {
      const result = await verify({ ...issued, data: { ...issued.data, ...change } });

      expect(result.verdict).toBe('mismatch');
      expect(result.hash.matches).toBe(false);
      expect(result.hash.detail).toContain('version 2 root');
      expect(result.trustpoints[0]?.verdict).toBe('mismatch');
    });

    it('when a copy withholds content fields, then it verifies and lists them as withheld', async () => {
      const copy = withholdCertificateFields(issued, [
        ['content', 'student', 'dateOfBirth'],
        ['content', 'grade'],
      ]);

      const result = await verify(copy);

      expect(result.verdict).toBe('verified');
      expect(copy.data.content).toEqual({ student: { name: 'Ada' }, passed: false });
      expect(result.hash.withheld).toHaveLength(2);
      expect(result.hash.withheld).toEqual(
        expect.arrayContaining([
          { kind: 'member', objectPath: ['content'], digest: expect.any(String) as unknown },
          {
            kind: 'member',
            objectPath: ['content', 'student'],
            digest: expect.any(String) as unknown,
          },
        ]),
      );
    });

    it('when a copy drops a field that cannot be withheld, then it is a mismatch, with the reason when the rule refuses it', async () => {
      const { issuerOrigin: _origin, ...withoutOrigin } = issued.data;
      const { expires: _expires, ...withoutExpiry } = issued.data;
      const inClear = createDisclosableCertificate(
        { certID: CERT_ID, data: { ...v2.certificate.data, content: { passed: true, grade: 1 } } },
        { inClear: [['content', 'passed']] },
      ).certificate;

      const noOrigin = await verify({ ...issued, data: withoutOrigin });
      const noExpiry = await verify({ ...issued, data: withoutExpiry });
      const keptInClear = await verify({
        ...issued,
        data: { ...inClear.data, content: { grade: 1 } },
      });

      expect(noOrigin.verdict).toBe('mismatch');
      expect(noExpiry.verdict).toBe('mismatch');
      expect(keptInClear.verdict).toBe('mismatch');
      expect(keptInClear.hash).toMatchObject({ matches: false, refusal: 'contentMismatch' });
      expect(keptInClear.hash.detail).toContain('version 2 rule');
    });

    it('when a copy shows content its disclosures do not reveal, then it is a mismatch', async () => {
      const result = await verify({
        ...issued,
        data: { ...issued.data, content: { ...issued.data.content, grade: 5 } },
      });

      expect(result.verdict).toBe('mismatch');
      expect(result.hash.refusal).toBe('contentMismatch');
    });
  });

  it('when the certificate comes in its API envelope, then it is read the same', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);

    const result = await verifyCertificate({
      certificate: { statusCode: 200, message: 'ok', data: certificate() },
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result.verified).toBe(true);
  });

  it('when the content of the JSON was changed, then the hash and the trustpoint are a mismatch', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);

    const result = await verifyCertificate({
      certificate: certificate({ content: { ...content, total: '1.00 EUR' } }),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result.verdict).toBe('mismatch');
    expect(result.hash.matches).toBe(false);
    expect(result.trustpoints[0]?.verdict).toBe('mismatch');
  });

  it('when the chain has no record under the key, then the trustpoint is not found', async () => {
    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      trust,
      fetch: fetchOf(nodeWith([])),
    });

    expect(result.verdict).toBe('notFound');
    expect(result.trustpoints[0]).toMatchObject({ verdict: 'notFound', node: NODE_URL });
  });

  it('when the first node is down, then the next one answers and is named', async () => {
    const fetch = fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]]));

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '31337': [DOWN_URL, NODE_URL] },
      trust,
      fetch,
    });

    expect(result.verified).toBe(true);
    expect(result.trustpoints[0]).toMatchObject({
      node: NODE_URL,
      attempts: [{ url: DOWN_URL, error: expect.stringContaining('fetch failed') as string }],
    });
  });

  it('when two of your nodes answer and one hides the record the other holds, then neither is believed and nothing is verified', async () => {
    // Arrange: the honest node has no record; a node that lies answers one.
    const LIAR_URL = 'http://liar.test:8545';
    const honest = nodeWith([]);
    const liar = { ...nodeWith([[ISSUED_ON + 1, hash, 0]]), url: LIAR_URL };

    // Act: the liar first, as a node given with --rpc comes before the pinned one.
    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '31337': [LIAR_URL, NODE_URL] },
      trust,
      fetch: fetchOf(liar, honest),
    });

    // Assert
    expect(result).toMatchObject({ verified: false, verdict: 'unchecked' });
    expect(result.trustpoints[0]).toMatchObject({ verdict: 'disagreement' });
    expect(result.trustpoints[0]?.detail).toContain('disagree');
  });

  it('when two of your nodes hold the record and one lies about the block that wrote it, then neither is believed', async () => {
    // Arrange: the liar answers the same record, dated by a receipt of a block an hour earlier.
    const LIAR_URL = 'http://liar.test:8545';
    const honest = nodeWith([[ISSUED_ON + 1, hash, 0]]);
    const liar = { ...honest, url: LIAR_URL, receipts: new Map(honest.receipts) };
    const receipt = honest.receipts?.get(TRANSACTION);
    if (receipt === undefined) throw new Error('a receipt');
    liar.receipts.set(TRANSACTION, { ...receipt, blockNumber: 6, blockTime: BLOCK_TIME - 3_600 });

    // Act
    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '31337': [LIAR_URL, NODE_URL] },
      trust,
      fetch: fetchOf(liar, honest),
    });

    // Assert
    expect(result.verified).toBe(false);
    expect(result.trustpoints[0]?.detail).toContain('the nodes disagree on the transaction');
  });

  it('when one of your nodes hides that a development account holds the registry and another shows it, then the record is not trusted', async () => {
    // Arrange: both hold the record; only the honest one answers hasRole for account #0.
    const LIAR_URL = 'http://liar.test:8545';
    const honest = nodeWith([[ISSUED_ON + 1, hash, 0]], {
      roles: { held: ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'] },
    });
    const liar = { ...nodeWith([[ISSUED_ON + 1, hash, 0]]), url: LIAR_URL };

    // Act
    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '31337': [LIAR_URL, NODE_URL] },
      trust,
      fetch: fetchOf(liar, honest),
    });

    // Assert
    expect(result.verified).toBe(false);
    expect(result.trustpoints[0]).toMatchObject({ verdict: 'untrusted' });
    expect(result.trustpoints[0]?.detail).toContain('development account');
  });

  it('when one of your nodes tells a latest block years ahead, then a certificate that has not expired is not judged expired by it', async () => {
    // Arrange: expires in 30 days; the liar's latest block is ten years ahead.
    const LIAR_URL = 'http://liar.test:8545';
    const expiring = certificate();
    (expiring.data as Record<string, unknown>).expires = Date.now() + 30 * 86_400_000;
    const honest = nodeWith([[ISSUED_ON + 1, hash, 0]]);
    const liar = {
      ...nodeWith([[ISSUED_ON + 1, hash, 0]]),
      url: LIAR_URL,
      latestBlockTime: Math.floor(Date.now() / 1000) + 10 * 365 * 86_400,
    };

    // Act
    const result = await verifyCertificate({
      certificate: expiring,
      rpc: { '31337': [LIAR_URL, NODE_URL] },
      trust,
      fetch: fetchOf(liar, honest),
    });

    // Assert
    expect(result.verdict).toBe('verified');
    expect(result.expiry).toMatchObject({ expired: false });
  });

  it('when a version 1 asset certificate shows content members its rule never hashed, then it is a mismatch naming them, not certified content', async () => {
    const assetContent = { assetId: 'pallet-7', from: 'Madrid', to: 'Lyon' };
    const assetHash = assetCertificateHash(assetContent);
    const base = certificate({
      type: 'asset',
      content: assetContent,
      metadata: [{ ...evidenceItem(), trustPointHash: assetHash }],
    });
    const genuine = { ...base, data: { ...base.data, hash: assetHash } };
    const forged = {
      ...genuine,
      data: { ...genuine.data, content: { ...assetContent, inspection: 'passed, no damage' } },
    };
    const verify = (copy: unknown) =>
      verifyCertificate({
        certificate: copy,
        rpc,
        trust,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, assetHash, 0]])),
      });

    const [ofGenuine, ofForged] = [await verify(genuine), await verify(forged)];

    expect(ofGenuine.verdict).toBe('verified');
    expect(ofForged.verdict).toBe('mismatch');
    expect(ofForged.hash.detail).toContain('this copy adds inspection');
  });

  it('when two of your nodes answer alike, then the record is verified and both are named', async () => {
    const other = { ...nodeWith([[ISSUED_ON + 1, hash, 0]]), url: 'http://other.test:8545' };

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '31337': [other.url, NODE_URL] },
      trust,
      fetch: fetchOf(other, nodeWith([[ISSUED_ON + 1, hash, 0]])),
    });

    expect(result.verified).toBe(true);
    expect(result.trustpoints[0]).toMatchObject({ node: other.url, nodes: [other.url, NODE_URL] });
  });

  it('when no node answers, then the trustpoint is unreachable and nothing is verified', async () => {
    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '*': [DOWN_URL] },
      trust,
      fetch: fetchOf(),
    });

    expect(result).toMatchObject({ verified: false, verdict: 'unchecked' });
    expect(result.trustpoints[0]?.verdict).toBe('unreachable');
  });

  it('when one of your nodes never answers, then the others are asked meanwhile, not after its timeout', async () => {
    const answering = fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]]));
    let hanging = 0;
    let askedWhileHanging = false;
    const fetch = ((input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = input instanceof Request ? input.url : input.toString();
      if (url !== SILENT_URL) {
        if (hanging > 0) askedWhileHanging = true;
        return answering(input, init);
      }
      hanging += 1;
      return new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => {
          hanging -= 1;
          reject(new Error('timed out'));
        });
      });
    }) as typeof globalThis.fetch;

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc: { '31337': [SILENT_URL, NODE_URL] },
      trust,
      fetch,
      timeoutMs: 300,
    });

    expect(askedWhileHanging).toBe(true);
    expect(result.verified).toBe(true);
    expect(result.trustpoints[0]).toMatchObject({ node: NODE_URL });
  });

  it('when no URL is given for the network, then it is unreachable and no node is asked', async () => {
    const fetch = fetchOf();

    const result = await verifyCertificate({ certificate: certificate(), rpc: {}, trust, fetch });

    expect(result.trustpoints[0]?.detail).toContain('no JSON-RPC URL');
    expect(fetch.calls).toEqual([]);
  });

  it('when the certificate names a registry nobody pinned, then it is untrusted, never verified, though the chain holds the record', async () => {
    const forged = `0x${'11'.repeat(20)}`;
    const fetch = fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]]));

    const result = await verifyCertificate({
      certificate: certificate({ metadata: [{ ...evidenceItem(), smartContract: forged }] }),
      rpc,
      trust,
      fetch,
    });

    expect(result).toMatchObject({ verified: false, verdict: 'untrusted' });
    expect(result.trustpoints[0]?.detail).toContain(`${forged} is not one that you pins`);
  });

  it('when the certificate names a registry the pinned one announced on chain as its next generation, then it is trusted through the pin', async () => {
    const successor = `0x${'5e'.repeat(20)}`;
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);
    node.records.set(NEXT_GENERATION_SELECTOR, `0x${successor.slice(2).padStart(64, '0')}`);
    node.receipts = new Map([
      [
        TRANSACTION,
        {
          status: '0x1',
          blockNumber: 7,
          blockTime: BLOCK_TIME,
          logs: [trustPointRecordedLog(successor, trustPointKey(CERT_ID, ISSUED_ON + 1), hash, 0)],
        },
      ],
    ]);

    const result = await verifyCertificate({
      certificate: certificate({ metadata: [{ ...evidenceItem(), smartContract: successor }] }),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result.verdict).toBe('verified');
    expect(result.trustpoints[0]?.trustedThrough).toBe('you');
  });

  it('when nothing is trusted at all, then even a genuine record is untrusted', async () => {
    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
    });

    expect(result.verdict).toBe('untrusted');
    expect(result.trustpoints[0]?.detail).toContain('nothing you trust pins network 31337');
  });

  it('when the certificate names a trusted registry in another case, then it is read and verified with the chain time', async () => {
    const result = await verifyCertificate({
      certificate: certificate({
        metadata: [{ ...evidenceItem(), smartContract: CONTRACT.toLowerCase() }],
      }),
      rpc,
      trust,
      fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
    });

    expect(result.verified).toBe(true);
    expect(result.trustpoints[0]?.chainTime).toMatchObject({
      blockNumber: 7,
      timestamp: BLOCK_TIME * 1000,
      node: NODE_URL,
    });
    expect(result.trustpoints[0]?.trustedThrough).toBe('you');
  });

  it('when the node is on another chain with the same chain id, then it is not asked and nothing is verified', async () => {
    const fetch = fetchOf(
      nodeWith([[ISSUED_ON + 1, hash, 0]], { genesisHash: `0x${'99'.repeat(32)}` }),
    );

    const result = await verifyCertificate({ certificate: certificate(), rpc, trust, fetch });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.attempts[0]?.error).toContain(
      'another chain with the same chain id',
    );
  });

  it('when the node answers another chain id, then it is not asked', async () => {
    const fetch = fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]], { chainId: 1337 }));

    const result = await verifyCertificate({ certificate: certificate(), rpc, trust, fetch });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]?.attempts[0]?.error).toContain('on chain 1337, not 31337');
  });

  it('when the named transaction did not write the record, then the chain cannot date it and it is unchecked', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);
    node.receipts = new Map([
      [TRANSACTION, { status: '0x1', blockNumber: 7, blockTime: BLOCK_TIME, logs: [] }],
    ]);

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result.verdict).toBe('unchecked');
    expect(result.trustpoints[0]).toMatchObject({ verdict: 'untimed' });
    expect(result.trustpoints[0]?.detail).toContain('did not write this record');
  });

  it('when the record was written outside the blocks its registry is trusted for, then it is untrusted', async () => {
    const retired: Trust = {
      networks: [
        {
          ...pinned,
          registries: [{ kind: 'trustPointRegistry', address: CONTRACT, fromBlock: 1, toBlock: 6 }],
          pinnedBy: 'https://certs.example.org',
        },
      ],
    };

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      trust: retired,
      fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
    });

    expect(result.verdict).toBe('untrusted');
    expect(result.trustpoints[0]?.detail).toContain(
      'outside the blocks https://certs.example.org trusts',
    );
  });

  it('when the certificate has expired, then it is expired, not verified', async () => {
    const expiring = certificate();
    (expiring.data as Record<string, unknown>).expires = ISSUED_ON + 1_000;

    const result = await verifyCertificate({
      certificate: expiring,
      rpc,
      trust,
      now: ISSUED_ON + 1_000,
      fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
    });

    expect(result).toMatchObject({ verdict: 'expired', verified: false });
    expect(result.expiry).toEqual({
      expires: ISSUED_ON + 1_000,
      expired: true,
      judgedAt: ISSUED_ON + 1_000,
    });
  });

  it('when a revocation is on chain, then the certificate is revoked, not verified', async () => {
    const revoked = revocationTrustPointHash(CERT_ID);
    const node = nodeWith([
      [ISSUED_ON + 1, hash, 0],
      [ISSUED_ON + 5, revoked, 1],
    ]);
    const revocation = {
      ...evidenceItem(ISSUED_ON + 5),
      type: 'Revocation',
      trustPointHash: revoked,
    };

    const result = await verifyCertificate({
      certificate: certificate({ metadata: [evidenceItem(), revocation] }),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result).toMatchObject({ verified: false, revoked: true, verdict: 'revoked' });
    expect(result.trustpoints.map((trustpoint) => trustpoint.verdict)).toEqual([
      'anchored',
      'revoked',
    ]);
  });

  describe('revocation status from the certID alone', () => {
    const REVOKED_AT = { timestamp: ISSUED_ON + 9_000, recordedAt: BLOCK_TIME + 60 };

    it('when a copy saved before its revocation is checked, then the status registry finds it revoked, with the chain time', async () => {
      const result = await verifyCertificate({
        certificate: certificate(),
        rpc,
        trust,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]], { status: statusResult(REVOKED_AT) })),
      });

      expect(result).toMatchObject({ verdict: 'revoked', verified: false, revoked: true });
      expect(result.revocation).toEqual({
        networkId: 31337,
        timestamp: REVOKED_AT.timestamp,
        recordedAt: REVOKED_AT.recordedAt * 1000,
      });
      expect(result.status).toEqual([
        expect.objectContaining({
          networkId: 31337,
          outcome: 'revoked',
          statusRegistry: STATUS_REGISTRY,
          trustedThrough: 'you',
          node: NODE_URL,
        }),
      ]);
    });

    it("when another pin of the network (an instance long gone) names the same registry on another chain, then the answer names only its own registry's node failures", async () => {
      const gone: Trust['networks'][number] = {
        ...pinned,
        genesisHash: `0x${'77'.repeat(32)}`,
        pinnedBy: 'an instance long gone',
      };

      const result = await verifyCertificate({
        certificate: certificate(),
        rpc,
        trust: { networks: [pinned, gone] },
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
      });

      expect(result.verdict).toBe('verified');
      expect(result.status).toEqual([
        expect.objectContaining({ outcome: 'notRevoked', trustedThrough: 'you', attempts: [] }),
      ]);
    });

    it('when nothing trusted pins a status registry for its network, then the revocation is not checked, never verified', async () => {
      const noStatus: Trust = {
        networks: [{ ...pinned, registries: [{ kind: 'trustPointRegistry', address: CONTRACT }] }],
      };

      const result = await verifyCertificate({
        certificate: certificate(),
        rpc,
        trust: noStatus,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]], { status: statusResult(REVOKED_AT) })),
      });

      expect(result).toMatchObject({ verdict: 'revocationUnchecked', verified: false });
      expect(result.status[0]).toMatchObject({ outcome: 'unchecked' });
      expect(result.status[0]?.detail).toContain('no status registry');
    });

    it('when the status registry does not answer as one, then the revocation is not checked', async () => {
      const result = await verifyCertificate({
        certificate: certificate(),
        rpc,
        trust,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]], { status: null })),
      });

      expect(result).toMatchObject({ verdict: 'revocationUnchecked', verified: false });
      expect(result.status[0]?.attempts[0]?.error).toContain(STATUS_REGISTRY);
    });

    it('when the status answer is malformed (revoked without a time), then it is not taken', async () => {
      const result = await verifyCertificate({
        certificate: certificate(),
        rpc,
        trust,
        fetch: fetchOf(
          nodeWith([[ISSUED_ON + 1, hash, 0]], { status: `0x${word(1)}${word(0)}${word(0)}` }),
        ),
      });

      expect(result.verdict).toBe('revocationUnchecked');
    });

    it('when it is revoked and expired, then revoked wins; when only expired, then expired', async () => {
      const expiring = certificate();
      (expiring.data as Record<string, unknown>).expires = ISSUED_ON + 1_000;
      const revoked = await verifyCertificate({
        certificate: expiring,
        rpc,
        trust,
        now: ISSUED_ON + 5_000,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]], { status: statusResult(REVOKED_AT) })),
      });
      const expired = await verifyCertificate({
        certificate: expiring,
        rpc,
        trust,
        now: ISSUED_ON + 5_000,
        fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
      });

      expect(revoked.verdict).toBe('revoked');
      expect(expired.verdict).toBe('expired');
    });

    it('when one of your nodes answers "not revoked" and another proves the revocation, then the certificate is not verified', async () => {
      // Arrange: a node that lies about the status registry alone, given before the honest one.
      const LIAR_URL = 'http://liar.test:8545';
      const liar = { ...nodeWith([[ISSUED_ON + 1, hash, 0]]), url: LIAR_URL };
      const honest = nodeWith([[ISSUED_ON + 1, hash, 0]], { status: statusResult(REVOKED_AT) });

      // Act
      const result = await verifyCertificate({
        certificate: certificate(),
        rpc: { '31337': [LIAR_URL, NODE_URL] },
        trust,
        fetch: fetchOf(liar, honest),
      });

      // Assert
      expect(result.verified).toBe(false);
      expect(result.verdict).toBe('revocationUnchecked');
      expect(result.status[0]?.detail).toContain('disagree');
    });

    it("when the verifier's clock is before the expiry and the chain's latest block after it, then expired, judged at the chain's time", async () => {
      // Arrange: a clock set back an hour; the chain's latest block an hour past the expiry.
      const expires = Date.now() + 3_600_000;
      const expiring = certificate();
      (expiring.data as Record<string, unknown>).expires = expires;
      const chainLater = Math.floor((expires + 3_600_000) / 1000);
      const chainEarlier = Math.floor((expires - 1_800_000) / 1000);
      const verifyAt = (latestBlockTime: number) =>
        verifyCertificate({
          certificate: expiring,
          rpc,
          trust,
          fetch: fetchOf({ ...nodeWith([[ISSUED_ON + 1, hash, 0]]), latestBlockTime }),
        });

      // Act
      const later = await verifyAt(chainLater);
      const earlier = await verifyAt(chainEarlier);

      // Assert
      expect(later.verdict).toBe('expired');
      expect(later.expiry).toMatchObject({
        expired: true,
        chainTime: chainLater * 1000,
        judgedAt: chainLater * 1000,
      });
      expect(earlier.verdict).toBe('verified');
      expect(earlier.expiry).toMatchObject({ expired: false, chainTime: chainEarlier * 1000 });
    });

    it('when a node of another chain answers, then its status is not used', async () => {
      const result = await verifyCertificate({
        certificate: certificate(),
        rpc,
        trust,
        fetch: fetchOf(
          nodeWith([[ISSUED_ON + 1, hash, 0]], { genesisHash: `0x${'11'.repeat(32)}` }),
        ),
      });

      expect(result.verified).toBe(false);
      expect(result.status[0]).toMatchObject({ outcome: 'unchecked' });
    });
  });

  it('when the chain holds another type under the key, then it is a mismatch', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 2]]);

    const result = await verifyCertificate({
      certificate: certificate(),
      rpc,
      trust,
      fetch: fetchOf(node),
    });

    expect(result.trustpoints[0]).toMatchObject({ verdict: 'mismatch' });
    expect(result.trustpoints[0]?.detail).toContain('Signature');
  });

  describe('qualified signatures', () => {
    const signedAt = ISSUED_ON + 9;

    async function signed(payloadAt = signedAt) {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
      const fields = {
        certID: CERT_ID,
        hash,
        issuer: 'did:user:local-user',
        issuedOn: ISSUED_ON,
        type: 'content',
      };
      const jws = await new CompactSign(
        new TextEncoder().encode(qualifiedSignaturePayload(fields, payloadAt)),
      )
        .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
        .sign(privateKey);
      const trustPointHash = qualifiedSignatureTrustPointHash(jws);
      const item = {
        ...evidenceItem(signedAt),
        type: 'Signature',
        trustPointHash,
        signature: jws,
      };
      const node = nodeWith([
        [ISSUED_ON + 1, hash, 0],
        [signedAt, trustPointHash, 2],
      ]);
      return { jwks: { keys: [jwk] } as JSONWebKeySet, item, node };
    }

    it('when the JWS verifies with the key set and signs this certificate, then it is signed', async () => {
      const { jwks, item, node } = await signed();

      const result = await verifyCertificate({
        certificate: certificate({ metadata: [evidenceItem(), item] }),
        rpc,
        trust,
        jwks,
        fetch: fetchOf(node),
      });

      expect(result.verified).toBe(true);
      expect(result.trustpoints[1]).toMatchObject({
        verdict: 'signed',
        signature: { valid: true, kid: 'key-1', algorithm: 'ES256' },
      });
    });

    it('when the key set holds another key, then the signature is invalid', async () => {
      const { item, node } = await signed();
      const other = await signed();

      const result = await verifyCertificate({
        certificate: certificate({ metadata: [evidenceItem(), item] }),
        rpc,
        trust,
        jwks: other.jwks,
        fetch: fetchOf(node),
      });

      expect(result.verdict).toBe('mismatch');
      expect(result.trustpoints[1]?.verdict).toBe('signatureInvalid');
    });

    it('when the JWS signs another time than its trustpoint, then the signature is invalid', async () => {
      const { jwks, item, node } = await signed(signedAt + 1);

      const result = await verifyCertificate({
        certificate: certificate({ metadata: [evidenceItem(), item] }),
        rpc,
        trust,
        jwks,
        fetch: fetchOf(node),
      });

      expect(result.trustpoints[1]).toMatchObject({
        verdict: 'signatureInvalid',
        signature: { valid: false, reason: expect.stringContaining('other fields') as string },
      });
    });

    it('when no key set is given, then the signature is on chain but unchecked', async () => {
      const { item, node } = await signed();

      const result = await verifyCertificate({
        certificate: certificate({ metadata: [evidenceItem(), item] }),
        rpc,
        trust,
        fetch: fetchOf(node),
      });

      expect(result).toMatchObject({ verified: false, verdict: 'unchecked' });
      expect(result.trustpoints[1]?.verdict).toBe('signatureUnchecked');
    });
  });

  it('when a file is given with a version 1 content certificate, then it is a mismatch: its hash covers no file', async () => {
    const result = await verifyCertificate({
      certificate: certificate(),
      file: new TextEncoder().encode('any file at all\n'),
      rpc,
      trust,
      fetch: fetchOf(nodeWith([[ISSUED_ON + 1, hash, 0]])),
    });

    expect(result.verdict).toBe('mismatch');
    expect(result.hash.detail).toContain("content certificate's hash covers no file");
  });

  describe('file certificates', () => {
    const bytes = new TextEncoder().encode('the signed contract, version 3\n');
    const { hash: fileHashDouble, fileHash } = fileCertificateHash(bytes);
    const fileCertificate = () => ({
      ...certificate({ type: 'file', content: {} }),
      data: { ...certificate().data, type: 'file', content: {}, hash: fileHashDouble, fileHash },
      metadata: [{ ...evidenceItem(), trustPointHash: fileHashDouble }],
    });
    const node = () => nodeWith([[ISSUED_ON + 1, fileHashDouble, 0]]);

    it('when the certified file is given, then both of its hashes are recomputed and it verifies', async () => {
      const result = await verifyCertificate({
        certificate: fileCertificate(),
        file: bytes,
        rpc,
        trust,
        fetch: fetchOf(node()),
      });

      expect(result.verified).toBe(true);
      expect(result.hash).toMatchObject({
        recomputed: fileHashDouble,
        fileHash: { recomputed: fileHash },
      });
    });

    it('when a changed file is given, then it is a mismatch', async () => {
      const tampered = new TextEncoder().encode('the signed contract, version 4\n');

      const result = await verifyCertificate({
        certificate: fileCertificate(),
        file: tampered,
        rpc,
        trust,
        fetch: fetchOf(node()),
      });

      expect(result.verdict).toBe('mismatch');
      expect(result.hash.detail).toContain('does not match');
      expect(result.trustpoints[0]?.verdict).toBe('mismatch');
    });

    it('when no file is given, then the certificate hash is taken as given, said so, and covers nothing: never verified (any name or date could sit beside it)', async () => {
      const result = await verifyCertificate({
        certificate: fileCertificate(),
        rpc,
        trust,
        fetch: fetchOf(node()),
      });

      expect(result.verified).toBe(false);
      expect(result.verdict).toBe('unchecked');
      expect(result.hash.covered).toEqual([]);
      expect(result.hash.recomputed).toBeUndefined();
      expect(result.hash.detail).toContain('give the file');
    });
  });

  it('when a copy lists more trustpoints than a certificate may, then it is refused before any node is asked', async () => {
    const node = nodeWith([[ISSUED_ON + 1, hash, 0]]);
    const fetch = fetchOf(node);
    const listing = (count: number) =>
      certificate({
        metadata: Array.from({ length: count }, (_, index) => evidenceItem(ISSUED_ON + 1 + index)),
      });

    const atLimit = verifyCertificate({
      certificate: listing(MAX_CERTIFICATE_TRUSTPOINTS),
      rpc,
      trust,
      fetch,
    });
    await expect(atLimit).resolves.toMatchObject({
      trustpoints: { length: MAX_CERTIFICATE_TRUSTPOINTS },
    });
    const askedAtLimit = fetch.calls.length;
    const overLimit = verifyCertificate({
      certificate: listing(MAX_CERTIFICATE_TRUSTPOINTS + 1),
      rpc,
      trust,
      fetch,
    });

    expect(MAX_CERTIFICATE_TRUSTPOINTS).toBe(64);
    await expect(overLimit).rejects.toThrow(VerifierInputError);
    await expect(overLimit).rejects.toThrow(
      '$.metadata lists 65 trustpoints; a certificate lists at most 64',
    );
    expect(askedAtLimit).toBeGreaterThan(0);
    expect(fetch.calls.length).toBe(askedAtLimit);
  });

  it('when the JSON is not a certificate, then it throws VerifierInputError naming the field', async () => {
    await expect(
      verifyCertificate({ certificate: { certID: CERT_ID, data: {} }, rpc }),
    ).rejects.toThrow(VerifierInputError);
  });

  it.each([
    ['smartContract', '0xdead', '$.metadata[0].smartContract must be an address'],
    ['smartContract', `0x${'g'.repeat(40)}`, '$.metadata[0].smartContract must be an address'],
    ['transactionHash', '0x12', '$.metadata[0].transactionHash must be a transaction hash'],
    ['timestamp', -1, '$.metadata[0].timestamp must be an integer, 0 or more'],
  ])(
    'when a trustpoint names %s %j, then it throws VerifierInputError naming the field, and no node is asked',
    async (name, value, message) => {
      const fetch = fetchOf(nodeWith([]));
      const given = certificate({ metadata: [{ ...evidenceItem(), [name]: value }] });

      const verifying = verifyCertificate({ certificate: given, rpc, fetch });

      await expect(verifying).rejects.toThrow(VerifierInputError);
      await expect(verifying).rejects.toThrow(message);
      expect(fetch.calls).toEqual([]);
    },
  );
});
