import { Readable } from 'node:stream';

import { CompactSign, exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';

import {
  ASSET_HASH_DOMAIN_V2,
  canonicalJsonBytes,
  CERTIFICATE_ROOT_DOMAIN_V2,
  combineTrust,
  createDisclosableCertificate,
  createFileHasher,
  hashFileStream,
  readDisclosableCertificate,
  DuplicateMemberError,
  encodeGetTrustPointCall,
  encodeRevocationOfCall,
  NEXT_GENERATION_SELECTOR,
  InexactNumberError,
  parseJsonStrict,
  PUBLIC_CHAINS,
  qualifiedSignaturePayload,
  qualifiedSignatureTrustPointHash,
  TRUST_POINT_NOT_FOUND_SELECTOR,
  trustOfContracts,
  trustPointKey,
  MAX_INPUT_DEPTH,
  VerifierInputError,
  verifyCertificate,
  verifyEvidence,
  type PinnedNetwork,
  type Trust,
  type VerifyCertificateInput,
} from '../src/index.js';
import {
  FAKE_GENESIS,
  fetchOf,
  trustPointRecordedLog,
  trustPointResult,
  type FakeNode,
} from './support/fake-node.js';

// What a forger tried, and what every verifier must answer: another chain of the same id, a
// registry no development account is seen not to hold, a successor announced with a key anybody
// has, an identity copied onto a forgery, a copy with a member named twice or a field added.
// The nodes are in memory (fake-node.ts); the verifier tests of the apps use a real Hardhat node.

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f77';
const REGISTRY = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const STATUS_REGISTRY = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
const NODE_URL = 'http://node.test:8545';
const TRANSACTION = `0x${'cd'.repeat(32)}`;
const ISSUED_ON = 1767225600000;
const ORIGIN = 'https://certs.university.example';
const OTHER_GENESIS = `0x${'0f'.repeat(32)}`;
const DEV_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const word = (value: number) => value.toString(16).padStart(64, '0');
/** `RoleGranted(bytes32,address,address)`. */
const ROLE_GRANTED = '0x2f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d';

/** A version 2 certificate issued at ORIGIN, anchored in `registry`, on a node in memory. */
function issued(registry = REGISTRY, node: Partial<FakeNode> = {}) {
  const { certificate, hash } = createDisclosableCertificate({
    certID: CERT_ID,
    data: {
      type: 'content',
      name: 'Diploma',
      description: 'Mathematics',
      issuer: 'did:user:registrar-office',
      issuerOrigin: ORIGIN,
      issuedOn: ISSUED_ON,
      content: { student: 'Ada', grade: 1 },
    },
  });
  const timestamp = ISSUED_ON + 1;
  return {
    certificate: {
      ...certificate,
      metadata: [
        {
          type: 'Evidence',
          networkId: 31337,
          smartContract: registry,
          transactionHash: TRANSACTION,
          trustPointHash: hash,
          timestamp,
        },
      ],
      status: 'anchored',
    },
    node: {
      url: NODE_URL,
      notFoundSelector: TRUST_POINT_NOT_FOUND_SELECTOR,
      records: new Map([
        [encodeGetTrustPointCall(CERT_ID, timestamp), trustPointResult(hash, 0)],
        [encodeRevocationOfCall(CERT_ID), `0x${word(0)}${word(0)}${word(0)}`],
      ]),
      receipts: new Map([
        [
          TRANSACTION,
          {
            status: '0x1' as const,
            blockNumber: 7,
            blockTime: 1767225603,
            logs: [trustPointRecordedLog(registry, trustPointKey(CERT_ID, timestamp), hash, 0)],
          },
        ],
      ]),
      ...node,
    } satisfies FakeNode,
  };
}

const networkOf = (pinnedBy: string, genesisHash: string | undefined): PinnedNetwork => ({
  networkId: '31337',
  chainId: 31337,
  ...(genesisHash === undefined ? {} : { genesisHash }),
  registries: [
    { kind: 'trustPointRegistry', address: REGISTRY },
    { kind: 'statusRegistry', address: STATUS_REGISTRY },
  ],
  pinnedBy,
});

const verify = (
  given: ReturnType<typeof issued>,
  trust: Trust,
  extra: Pick<VerifyCertificateInput, 'resolveTxt' | 'file'> = {},
) =>
  verifyCertificate({
    certificate: given.certificate,
    rpc: { '31337': [NODE_URL] },
    trust,
    fetch: fetchOf(given.node),
    now: ISSUED_ON + 1000,
    ...extra,
  });

describe('verifyCertificate against forgeries', () => {
  it('when the record is read under your own pin from a chain the origin you trust did not pin, then that origin does not vouch for it: issuer not trusted', async () => {
    // The forger's chain (FAKE_GENESIS) has the same id and the registry at the same address as
    // the origin's chain (OTHER_GENESIS): the first deployment of account #0 on any dev chain.
    const origin = { networks: [networkOf(ORIGIN, OTHER_GENESIS)], origins: [ORIGIN] };
    const yours = { networks: [networkOf('you', undefined)] };

    const forged = await verify(issued(), combineTrust(origin, yours));
    const onTheOriginsChain = await verify(
      issued(),
      combineTrust({ networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] }, yours),
    );

    expect(forged.verdict).toBe('issuerUntrusted');
    expect(forged.trustpoints[0]).toMatchObject({ trustedThrough: 'you', vouchedBy: ['you'] });
    expect(forged.issuer.detail).toContain('not recorded under its pin');
    expect(onTheOriginsChain.verdict).toBe('verified');
    expect(onTheOriginsChain.trustpoints[0]?.vouchedBy).toEqual([ORIGIN, 'you']);
  });

  it('when you pin a registry of a well-known chain by its address, then a node of another chain answering its chain id is refused by its genesis', () => {
    const ethereum = PUBLIC_CHAINS.find((chain) => chain.chainId === 1);

    const trust = trustOfContracts({ '1': [REGISTRY] }, 'trustPointRegistry');
    const devChain = trustOfContracts({ '31337': [REGISTRY] }, 'trustPointRegistry', 'you', {
      '31337': OTHER_GENESIS,
    });

    expect(trust.networks[0]?.genesisHash).toBe(ethereum?.genesisHash);
    expect(devChain.networks[0]?.genesisHash).toBe(OTHER_GENESIS);
    expect(() =>
      trustOfContracts({ '31337': [REGISTRY] }, 'trustPointRegistry', 'you', { '31337': '0x12' }),
    ).toThrow('Not a block hash');
  });

  it('when your pin names the genesis of your chain, then a node of another chain with the same id finds nothing trusted', async () => {
    const trust = trustOfContracts({ '31337': [REGISTRY] }, 'trustPointRegistry', 'you', {
      '31337': OTHER_GENESIS,
    });

    const result = await verify(issued(), trust);

    expect(result.verdict).not.toBe('verified');
    expect(result.trustpoints[0]?.detail).toContain('no node proved to be on network 31337');
  });

  it.each([
    [
      'a development account holds its admin role',
      { held: [DEV_ACCOUNT] },
      'held by the well-known development account',
    ],
    [
      'it does not answer hasRole at all',
      'none' as const,
      'could not be asked who holds its roles',
    ],
  ])(
    'when the registry you pinned is on another machine and %s, then nothing in it is trusted',
    async (_, roles, why) => {
      const result = await verify(issued(REGISTRY, { roles }), {
        networks: [networkOf('you', FAKE_GENESIS)],
      });

      expect(result.verdict).toBe('untrusted');
      expect(result.trustpoints[0]?.detail).toContain(why);
    },
  );

  it('when a development account once granted the registry its roles, though none holds one now, then nothing in it is trusted away from this machine', async () => {
    const word32 = (value: string) => `0x${value.slice(2).toLowerCase().padStart(64, '0')}`;
    const privateKey = `0x${'9a'.repeat(20)}`;
    const granted = (account: string, sender: string) => ({
      address: REGISTRY,
      topics: [ROLE_GRANTED, `0x${'00'.repeat(32)}`, word32(account), word32(sender)],
      blockNumber: '0x1',
    });
    const handedOver = issued(REGISTRY, { logs: [granted(privateKey, DEV_ACCOUNT)] });
    const neverDev = issued(REGISTRY, { logs: [granted(privateKey, privateKey)] });
    const toAccount19 = issued(REGISTRY, {
      roles: { held: ['0x8626f6940e2eb28930efb4cef49b2d1f2c9c1199'] },
    });
    const trust = { networks: [networkOf('you', FAKE_GENESIS)] };

    const results = await Promise.all(
      [handedOver, neverDev, toAccount19].map((given) => verify(given, trust)),
    );

    expect(results.map((result) => result.trustpoints[0]?.verdict)).toEqual([
      'untrusted',
      'anchored',
      'untrusted',
    ]);
    expect(results[0]?.trustpoints[0]?.detail).toContain(
      `it was in the hands of the well-known development account ${DEV_ACCOUNT}`,
    );
  });

  it('when a registry held by a development account announces a successor, then the successor is not trusted, though no development account holds it', async () => {
    const successor = `0x${'5e'.repeat(20)}`;
    const given = issued(successor, {
      roles: { held: [DEV_ACCOUNT], on: [REGISTRY.toLowerCase()] },
    });
    given.node.records.set(NEXT_GENERATION_SELECTOR, `0x${successor.slice(2).padStart(64, '0')}`);
    const trust = { networks: [networkOf('you', FAKE_GENESIS)] };

    const announcedByDev = await verify(given, trust);
    const honest = issued(successor, { roles: { held: [DEV_ACCOUNT], on: [] } });
    honest.node.records.set(NEXT_GENERATION_SELECTOR, `0x${successor.slice(2).padStart(64, '0')}`);
    const announcedByHonest = await verify(honest, trust);

    expect(announcedByDev.verdict).toBe('untrusted');
    expect(announcedByDev.trustpoints[0]?.detail).toContain('is not one that you pins');
    expect(announcedByHonest.trustpoints[0]).toMatchObject({
      verdict: 'anchored',
      trustedThrough: 'you',
    });
  });

  it('when a copy is not proven to come from its origin, then the identity it names is not looked up, even where the DNS would prove it', async () => {
    const { certificate, hash } = createDisclosableCertificate({
      certID: CERT_ID,
      data: {
        type: 'content',
        name: 'Diploma',
        description: 'Mathematics',
        issuer: 'did:user:registrar-office',
        issuerOrigin: ORIGIN,
        issuerDomain: 'university.example',
        issuedOn: ISSUED_ON,
        content: { student: 'Ada', grade: 1 },
      },
    });
    const given = issued();
    given.node.records.set(
      encodeGetTrustPointCall(CERT_ID, ISSUED_ON + 1),
      trustPointResult(hash, 0),
    );
    given.node.receipts = new Map([
      [
        TRANSACTION,
        {
          status: '0x1',
          blockNumber: 7,
          blockTime: 1767225603,
          logs: [trustPointRecordedLog(REGISTRY, trustPointKey(CERT_ID, ISSUED_ON + 1), hash, 0)],
        },
      ],
    ]);
    const copy = {
      ...given,
      certificate: {
        ...certificate,
        metadata: given.certificate.metadata.map((item) => ({ ...item, trustPointHash: hash })),
        status: 'anchored',
      },
    };
    const looked: string[] = [];
    const resolveTxt = (name: string) => {
      looked.push(name);
      return Promise.resolve([
        `trustpoint-issuer v=1 origin=${ORIGIN} account=did:user:registrar-office`,
      ]);
    };

    const untrusted = await verify(
      copy,
      { networks: [networkOf('you', FAKE_GENESIS)] },
      { resolveTxt },
    );
    const trusted = await verify(
      copy,
      { networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] },
      { resolveTxt },
    );

    expect(untrusted.verdict).toBe('issuerUntrusted');
    expect(untrusted.issuer.identity).toMatchObject({ outcome: 'unchecked' });
    expect(untrusted.issuer.identity?.detail).toContain('not looked up');
    expect(trusted.verdict).toBe('verified');
    expect(trusted.issuer.identity?.outcome).toBe('proven');
    expect(looked).toEqual(['_trustpoint.university.example']);
  });

  it('when a genuine content certificate is handed over with a file, then the file is not what it certifies: a mismatch saying so, never verified', async () => {
    const given = issued();
    const trust = { networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] };
    const forgedPdf = new TextEncoder().encode('I owe Mallory 1,000,000 EUR\n');

    const alone = await verify(given, trust);
    const withFile = await verify(given, trust, { file: forgedPdf });

    expect(alone.verdict).toBe('verified');
    expect(withFile.verified).toBe(false);
    expect(withFile.verdict).toBe('mismatch');
    expect(withFile.hash.matches).toBe(false);
    expect(withFile.hash.detail).toBe(
      "a file was given, but this content certificate's hash covers no file: the file is not what it certifies",
    );
  });

  it('when a field the hash does not cover is added to a version 2 copy, then it is a mismatch naming it', async () => {
    const given = issued();
    const copy = {
      ...given,
      certificate: {
        ...given.certificate,
        data: { ...given.certificate.data, fileName: 'diploma.pdf' },
      },
    };

    const genuine = await verify(given, {
      networks: [networkOf(ORIGIN, FAKE_GENESIS)],
      origins: [ORIGIN],
    });
    const added = await verify(copy, {
      networks: [networkOf(ORIGIN, FAKE_GENESIS)],
      origins: [ORIGIN],
    });

    expect(genuine.verdict).toBe('verified');
    expect(genuine.hash.unverified).toEqual([]);
    expect(added.verdict).toBe('mismatch');
    expect(added.hash.unverified).toEqual(['fileName']);
    expect(added.hash.detail).toContain(
      'the copy shows fileName, which the version 2 rule does not cover',
    );
  });

  it.each([
    [
      'a member named after an Object.prototype member in data',
      'data',
      'constructor',
      'constructor',
    ],
    ['__proto__ in data (an own member, as JSON.parse makes it)', 'data', '__proto__', '__proto__'],
    ['toString in data', 'data', 'toString', 'toString'],
    [
      'a member in selectiveDisclosure',
      'selectiveDisclosure',
      'grade',
      'selectiveDisclosure.grade',
    ],
    ['a member in a trustpoint', 'metadata', 'note', 'metadata[0].note'],
  ] as const)(
    'when %s is added to a version 2 copy, then it is a mismatch naming it',
    async (_what, where, name, named) => {
      const given = issued();
      const certificate = JSON.parse(JSON.stringify(given.certificate)) as {
        data: Record<string, unknown> & { selectiveDisclosure: Record<string, unknown> };
        metadata: Record<string, unknown>[];
      };
      const target =
        where === 'data'
          ? certificate.data
          : where === 'selectiveDisclosure'
            ? certificate.data.selectiveDisclosure
            : certificate.metadata[0];
      // An own member whatever its name (an assignment to __proto__ would set the prototype).
      Object.defineProperty(target, name, { value: 'Grade A+', enumerable: true });

      const added = await verify(
        { ...given, certificate: certificate as unknown as typeof given.certificate },
        { networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] },
      );

      expect(added.verdict).toBe('mismatch');
      expect(added.hash.unverified).toContain(named);
    },
  );

  it("when members are added beside data (a top-level name), then it is a mismatch listing them by their path, the service's own members not", async () => {
    const given = issued();
    const copy = {
      ...given,
      certificate: {
        ...given.certificate,
        access: { public: true },
        status: 'anchored',
        name: 'Diploma with honours',
        grade: 'A+',
      },
    };

    const added = await verify(copy, {
      networks: [networkOf(ORIGIN, FAKE_GENESIS)],
      origins: [ORIGIN],
    });

    expect(added.verdict).toBe('mismatch');
    expect(added.hash.unverified).toEqual(['$.name', '$.grade']);
    expect(added.hash.detail).toContain('the copy shows $.name, $.grade');
  });
});

describe('verifyCertificate: a version 2 certificate passed off as version 1', () => {
  /** The forger's copy: type file, no hashVersion, any name; "the file" is the root's preimage. */
  function downgraded(given: ReturnType<typeof issued>) {
    const { payload } = readDisclosableCertificate(given.certificate);
    const domain = new TextEncoder().encode(CERTIFICATE_ROOT_DOMAIN_V2);
    const canonical = canonicalJsonBytes(payload);
    const bytes = new Uint8Array(domain.length + canonical.length);
    bytes.set(domain, 0);
    bytes.set(canonical, domain.length);
    const { data } = given.certificate;
    const hasher = createFileHasher();
    hasher.update(bytes);
    return {
      bytes,
      certificate: {
        ...given.certificate,
        data: {
          type: 'file',
          name: 'Diploma, summa cum laude',
          description: 'Physics',
          issuer: data.issuer,
          issuedOn: data.issuedOn,
          hash: data.hash,
          fileHash: hasher.digest().fileHash,
        },
      },
    };
  }

  it('when the bytes a version 2 root is made from are given as the file of a version 1 copy, then it is a mismatch, however they are cut into chunks', async () => {
    const given = issued();
    const trust = { networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] };
    const forged = downgraded(given);
    // Cut inside the domain, so that no one chunk holds it whole.
    const chunks = [
      forged.bytes.subarray(0, 5),
      forged.bytes.subarray(5, 20),
      forged.bytes.subarray(20),
    ];

    const genuine = await verify(given, trust);
    const withBytes = await verifyCertificate({
      certificate: forged.certificate,
      file: forged.bytes,
      rpc: { '31337': [NODE_URL] },
      trust,
      fetch: fetchOf(given.node),
      now: ISSUED_ON + 1000,
    });
    const streamed = await hashFileStream(Readable.from(chunks));
    const withHashes = await verifyCertificate({
      certificate: forged.certificate,
      file: streamed,
      rpc: { '31337': [NODE_URL] },
      trust,
      fetch: fetchOf(given.node),
      now: ISSUED_ON + 1000,
    });

    expect(genuine.verdict).toBe('verified');
    // The version 1 file rule does give the anchored root: only the domain tells them apart.
    expect(withBytes.hash.recomputed).toBe(given.certificate.data.hash);
    expect(streamed.hashDomain).toBe(CERTIFICATE_ROOT_DOMAIN_V2);
    for (const result of [withBytes, withHashes]) {
      expect(result.verdict).toBe('mismatch');
      expect(result.hash.matches).toBe(false);
      expect(result.hash.detail).toContain('the bytes a version 2 hash is made from');
    }
  });

  it('when a file begins with a version 2 domain, the hasher says which; any other file, and one shorter than a domain, none', () => {
    const hashDomainOf = (text: string) => {
      const hasher = createFileHasher();
      hasher.update(new TextEncoder().encode(text));
      return hasher.digest().hashDomain;
    };

    expect(hashDomainOf(`${ASSET_HASH_DOMAIN_V2}{}`)).toBe(ASSET_HASH_DOMAIN_V2);
    expect(hashDomainOf(CERTIFICATE_ROOT_DOMAIN_V2)).toBe(CERTIFICATE_ROOT_DOMAIN_V2);
    expect(hashDomainOf('Trustpoint certificate hash v2')).toBeNull();
    expect(hashDomainOf(`%PDF-1.7 ${CERTIFICATE_ROOT_DOMAIN_V2}`)).toBeNull();
    expect(hashDomainOf('')).toBeNull();
  });
});

describe('verifyCertificate: revocation read from the sources that vouch for the Evidence', () => {
  const OTHER_ORIGIN = 'https://certs.other-service.example';
  const OTHER_STATUS_REGISTRY = '0x1eb8a7c1b9a5e7e2c0a8e5abcdef0123456789ab';

  it("when the issuer's pin has no status registry and another trusted source's says not revoked, then revocation is not checked, and a revocation there still counts", async () => {
    const given = issued();
    // Pinned before its service deployed a status registry: the trustpoint registry only.
    const issuerPin: PinnedNetwork = {
      ...networkOf(ORIGIN, FAKE_GENESIS),
      registries: [{ kind: 'trustPointRegistry', address: REGISTRY }],
    };
    const otherPin: PinnedNetwork = {
      ...networkOf(OTHER_ORIGIN, FAKE_GENESIS),
      registries: [{ kind: 'statusRegistry', address: OTHER_STATUS_REGISTRY }],
    };
    const trust = combineTrust(
      { networks: [issuerPin], origins: [ORIGIN] },
      { networks: [otherPin], origins: [OTHER_ORIGIN] },
    );
    const revokedThere = {
      ...given,
      node: {
        ...given.node,
        records: new Map([
          ...given.node.records,
          [
            encodeRevocationOfCall(CERT_ID),
            `0x${word(1)}${word(ISSUED_ON + 5)}${word(1767225700)}`,
          ],
        ]),
      },
    };

    const notRevokedElsewhere = await verify(given, trust);
    const revokedElsewhere = await verify(revokedThere, trust);
    const withItsOwn = await verify(given, {
      networks: [networkOf(ORIGIN, FAKE_GENESIS)],
      origins: [ORIGIN],
    });

    expect(notRevokedElsewhere.verdict).toBe('revocationUnchecked');
    expect(notRevokedElsewhere.status[0]).toMatchObject({ outcome: 'unchecked' });
    expect(notRevokedElsewhere.status[0]?.detail).toContain(
      `${ORIGIN}, which vouches for its Evidence, pins no status registry`,
    );
    expect(revokedElsewhere.verdict).toBe('revoked');
    expect(withItsOwn.verdict).toBe('verified');
    expect(withItsOwn.status[0]).toMatchObject({ outcome: 'notRevoked', trustedThrough: ORIGIN });
  });
});

describe('verifyCertificate: signature keys from a service', () => {
  async function signedCopy() {
    const given = issued();
    const data = given.certificate.data;
    const signedAt = ISSUED_ON + 9;
    const key = async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
      return { privateKey, jwks: { keys: [jwk] } as JSONWebKeySet };
    };
    const issuer = await key();
    const impostor = await key();
    const payload = qualifiedSignaturePayload(
      {
        certID: CERT_ID,
        hash: data.hash,
        issuer: data.issuer,
        issuedOn: data.issuedOn,
        type: 'content',
      },
      signedAt,
    );
    const jws = await new CompactSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .sign(issuer.privateKey);
    const trustPointHash = qualifiedSignatureTrustPointHash(jws);
    const [evidence] = given.certificate.metadata;
    if (evidence === undefined) throw new Error('no Evidence');
    given.certificate.metadata.push({
      ...evidence,
      type: 'Signature',
      timestamp: signedAt,
      trustPointHash,
      signature: jws,
    } as typeof evidence);
    given.node.records.set(
      encodeGetTrustPointCall(CERT_ID, signedAt),
      trustPointResult(trustPointHash, 2),
    );
    given.node.receipts
      .get(TRANSACTION)
      ?.logs.push(
        trustPointRecordedLog(REGISTRY, trustPointKey(CERT_ID, signedAt), trustPointHash, 2),
      );
    return { given, issuer: issuer.jwks, impostor: impostor.jwks };
  }

  it("when a service other than the issuing origin serves keys that refuse the signature, then it is unchecked, not invalid; the issuer's own keys decide", async () => {
    const { given, issuer, impostor } = await signedCopy();
    const trust = { networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] };
    const withKeys = (jwks: JSONWebKeySet, jwksOrigin?: string) =>
      verifyCertificate({
        certificate: given.certificate,
        rpc: { '31337': [NODE_URL] },
        trust,
        fetch: fetchOf(given.node),
        now: ISSUED_ON + 1000,
        jwks,
        ...(jwksOrigin === undefined ? {} : { jwksOrigin }),
      });

    const fromImpostor = await withKeys(impostor, 'http://127.0.0.1:28098');
    const impostorFromIssuer = await withKeys(impostor, ORIGIN.toUpperCase());
    const chosenByYou = await withKeys(impostor);
    const genuine = await withKeys(issuer, 'http://127.0.0.1:28098');

    expect(fromImpostor.verdict).toBe('unchecked');
    expect(fromImpostor.trustpoints[1]).toMatchObject({ verdict: 'signatureUnchecked' });
    expect(fromImpostor.trustpoints[1]?.detail).toContain(
      `not from the issuing origin ${ORIGIN}, so it cannot prove the signature wrong`,
    );
    expect(impostorFromIssuer.trustpoints[1]?.verdict).toBe('signatureInvalid');
    expect(chosenByYou.trustpoints[1]?.verdict).toBe('signatureInvalid');
    expect(genuine.verdict).toBe('verified');
    expect(genuine.trustpoints[1]?.verdict).toBe('signed');
  });
});

describe('parseJsonStrict', () => {
  it.each([
    ['{"data":{"name":"Forged","name":"Diploma"}}', '$.data.name'],
    ['[{"a":1},{"b":1,"b":2}]', '$[1].b'],
    ['{"x":{"odd key":1,"odd key":1}}', '$.x["odd key"]'],
    ['{"data":{"name":"Forged","\\u006eame":"Diploma"}}', '$.data.name'],
  ])('when %s names a member twice, then it is refused naming %s', (text, path) => {
    expect(() => parseJsonStrict(text)).toThrow(DuplicateMemberError);
    expect(() => parseJsonStrict(text)).toThrow(`${path} is given twice`);
  });

  it('when a copy or an asset is nested thousands deep (deeper than the rules recurse), then it is refused as no certificate or evidence, not a crash', async () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 1;
      for (let level = 0; level < levels; level += 1) value = [value];
      return value;
    };
    const given = issued();
    const data = given.certificate.data as unknown as Record<string, unknown>;
    const disclosed = data.selectiveDisclosure as Record<string, unknown>;
    const deepCopy = (levels: number) => ({
      ...given.certificate,
      data: {
        ...data,
        selectiveDisclosure: {
          ...disclosed,
          content: { ...(disclosed.content as object), deep: nested(levels) },
        },
      },
    });
    const asset = {
      assetId: 'pallet-7',
      transactions: [
        { timestamp: 1, hash: 'ab'.repeat(32), userOwner: 'u', metadata: { deep: nested(2_500) } },
      ],
    };
    const verifyCopy = (certificate: unknown) =>
      verifyCertificate({
        certificate,
        rpc: { '31337': [NODE_URL] },
        trust: { networks: [networkOf(ORIGIN, FAKE_GENESIS)], origins: [ORIGIN] },
        fetch: fetchOf(given.node),
        now: ISSUED_ON + 1000,
      });

    const within = await verifyCopy(deepCopy(MAX_INPUT_DEPTH - 10));
    const tooDeep = await verifyCopy(deepCopy(2_500)).catch((error: unknown) => error);
    const deepAsset = await verifyEvidence({
      evidence: asset,
      rpc: { '31337': [NODE_URL] },
      trust: { networks: [] },
    }).catch((error: unknown) => error);

    expect(within.verdict).toBe('mismatch');
    expect(tooDeep).toBeInstanceOf(VerifierInputError);
    expect((tooDeep as Error).message).toBe(
      `The JSON is nested deeper than ${String(MAX_INPUT_DEPTH)} levels: no certificate is`,
    );
    expect(deepAsset).toBeInstanceOf(VerifierInputError);
    expect((deepAsset as Error).message).toContain('no asset or evidence is');
  });

  it('when every member is named once, then it reads as JSON.parse does; nested past what it can read, it is refused, not a crash', () => {
    const deep = `${'['.repeat(300)}1${']'.repeat(300)}`;
    const tooDeep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    const text = '{"a":{"a":1},"b":[{"a":2},{"a":3}],"__proto__":{"x":1}}';

    expect(parseJsonStrict(text)).toEqual(JSON.parse(text));
    expect(parseJsonStrict(deep)).toEqual(JSON.parse(deep));
    expect(() => parseJsonStrict('{"a":1,}')).toThrow(SyntaxError);
    expect(() => parseJsonStrict(tooDeep)).toThrow('nested too deeply');
  });

  it.each([
    ['{"grades":[10,9.0000000000000001,8]}', '$.grades[1]', '9'],
    ['{"serial":9007199254740993}', '$.serial', '9007199254740992'],
    ['{"a":{"b":1e400}}', '$.a.b', 'Infinity'],
    ['{"tiny":1e-400}', '$.tiny', '0'],
    ['{"pi":3.14159265358979323846}', '$.pi', '3.141592653589793'],
  ])(
    'when %s writes a number with more than its value, then it is refused naming %s, read as %s',
    (text, path, reads) => {
      expect(() => parseJsonStrict(text)).toThrow(InexactNumberError);
      expect(() => parseJsonStrict(text)).toThrow(`${path} is written`);
      expect(() => parseJsonStrict(text)).toThrow(`reads as ${reads}:`);
    },
  );

  it('when a number is written in any form of the value it holds, then it reads as JSON.parse does', () => {
    const text =
      '{"a":1.0,"b":1e2,"c":100.00,"d":-0,"e":0.1,"f":1E+21,"g":5e-324,"h":-1.5e-7,"i":0.000,"j":9007199254740991,"k":[0,-0.0,12.50]}';

    expect(parseJsonStrict(text)).toEqual(JSON.parse(text));
  });

  it('when a genuine certificate is read back, then every number it holds is exact (what JSON.stringify writes always is)', () => {
    const values = [0.1, 1 / 3, 2 ** 53 - 1, -1e-7, 1e21, 123.456, Number.MIN_VALUE, -0];
    const text = JSON.stringify({ values });

    expect(parseJsonStrict(text)).toEqual(JSON.parse(text));
  });
});
