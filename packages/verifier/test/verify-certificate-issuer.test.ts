import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  CERTIFICATE_VERDICT_PRECEDENCE,
  contentCertificateHash,
  createDisclosableCertificate,
  encodeGetTrustPointCall,
  encodeRevocationOfCall,
  revocationTrustPointHash,
  TRUST_DOCUMENT_FORMAT,
  TRUST_POINT_NOT_FOUND_SELECTOR,
  trustPointKey,
  verifyCertificate,
  dnsOverHttpsTxt,
  issuerDomainRecordValue,
  normalizeIssuerDomain,
  parseIssuerDomainRecord,
  type PinnedNetwork,
  type Trust,
  type TrustDocument,
} from '../src/index.js';
import { nodeTxtResolver } from './support/node-txt-resolver.js';
import {
  FAKE_GENESIS,
  fetchOf,
  trustPointRecordedLog,
  trustPointResult,
  type FakeNode,
} from './support/fake-node.js';

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f99';
const REGISTRY = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OTHER_REGISTRY = `0x${'42'.repeat(20)}`;
const STATUS_REGISTRY = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
const NODE_URL = 'http://node.test:8545';
const TRANSACTION = `0x${'cd'.repeat(32)}`;
const ISSUED_ON = 1767225600000;
const ORIGIN = 'https://certs.university.example';
const word = (value: number) => value.toString(16).padStart(64, '0');

/** A version 2 certificate naming `issuerOrigin` (as written), anchored in REGISTRY. */
function issuedAt(issuerOrigin: string | undefined, revoked = false, issuerDomain?: string) {
  const { certificate, hash } = createDisclosableCertificate({
    certID: CERT_ID,
    data: {
      type: 'content',
      name: 'Diploma',
      description: 'Mathematics',
      issuer: 'did:user:registrar-office',
      ...(issuerOrigin === undefined ? {} : { issuerOrigin }),
      ...(issuerDomain === undefined ? {} : { issuerDomain }),
      issuedOn: ISSUED_ON,
      content: { student: 'Ada', grade: 1 },
    },
  });
  const metadata = [
    {
      type: 'Evidence',
      networkId: 31337,
      smartContract: REGISTRY,
      transactionHash: TRANSACTION,
      trustPointHash: hash,
      timestamp: ISSUED_ON + 1,
    },
    ...(revoked
      ? [
          {
            type: 'Revocation',
            networkId: 31337,
            smartContract: REGISTRY,
            transactionHash: TRANSACTION,
            trustPointHash: revocationTrustPointHash(CERT_ID),
            timestamp: ISSUED_ON + 2,
          },
        ]
      : []),
  ];
  const records: [number, string, number][] = [
    [ISSUED_ON + 1, hash, 0],
    ...(revoked
      ? [[ISSUED_ON + 2, revocationTrustPointHash(CERT_ID), 1] as [number, string, number]]
      : []),
  ];
  const node: FakeNode = {
    url: NODE_URL,
    notFoundSelector: TRUST_POINT_NOT_FOUND_SELECTOR,
    records: new Map([
      ...records.map(([timestamp, recordHash, type]): [string, string] => [
        encodeGetTrustPointCall(CERT_ID, timestamp),
        trustPointResult(recordHash, type),
      ]),
      [encodeRevocationOfCall(CERT_ID), `0x${word(0)}${word(0)}${word(0)}`],
    ]),
    receipts: new Map([
      [
        TRANSACTION,
        {
          status: '0x1',
          blockNumber: 7,
          blockTime: 1767225603,
          logs: records.map(([timestamp, recordHash, type]) =>
            trustPointRecordedLog(REGISTRY, trustPointKey(CERT_ID, timestamp), recordHash, type),
          ),
        },
      ],
    ]),
  };
  return { certificate: { ...certificate, metadata, status: 'anchored' }, node };
}

const network = (pinnedBy: string, registry = REGISTRY): PinnedNetwork => ({
  networkId: '31337',
  chainId: 31337,
  genesisHash: FAKE_GENESIS,
  registries: [
    { kind: 'trustPointRegistry', address: registry },
    { kind: 'statusRegistry', address: STATUS_REGISTRY },
  ],
  pinnedBy,
});

/** What `trustpoint trust add <origin>` gives: the origin's networks, and the origin itself. */
const trustingOrigin = (origin: string, registry = REGISTRY): Trust => ({
  networks: [network(origin, registry)],
  origins: [origin],
});

/** What `--contract 31337=<registry>` (and `--status-contract`) gives: no origin. */
const pinnedByYou: Trust = { networks: [network('you')] };

const documentOf = (origin: string, registry: string): TrustDocument => ({
  trustpoint: TRUST_DOCUMENT_FORMAT,
  origin,
  name: 'University of Examples',
  networks: [
    {
      networkId: '31337',
      chainId: 31337,
      genesisHash: FAKE_GENESIS,
      registries: [{ kind: 'trustPointRegistry', address: registry }],
    },
  ],
});

describe('verifyCertificate: who issued it', () => {
  // The trust documents of https origins, served by a real HTTP server on this machine. The
  // verifier reads them with the fetch it is given, which sends requests for those https
  // origins to this server (this machine has no public https names): a stand-in for the
  // origins' own servers. Every request is counted, by the Host it was for.
  let server: Server;
  let base: string;
  const documents = new Map<string, TrustDocument>();
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const origin = request.headers['x-forwarded-origin'] as string;
      requests.push(`${origin}${request.url ?? ''}`);
      const document = documents.get(origin);
      if (request.url !== '/.well-known/trustpoint.json' || document === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  });

  /** The node in memory for JSON-RPC; any other URL goes to the documents' server. */
  const fetchWith = (node: FakeNode): typeof fetch => {
    const nodes = fetchOf(node);
    return (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      if (url.toString() === NODE_URL || url.toString() === `${NODE_URL}/`) {
        return nodes(input, init);
      }
      const headers = new Headers(init?.headers);
      headers.set('x-forwarded-origin', url.origin);
      return globalThis.fetch(`${base}${url.pathname}`, { ...init, headers });
    };
  };

  const verify = (
    issued: ReturnType<typeof issuedAt>,
    trust: Trust,
    options: { readIssuerDocument?: boolean; certificate?: unknown } = {},
  ) =>
    verifyCertificate({
      certificate: options.certificate ?? issued.certificate,
      rpc: { '31337': [NODE_URL] },
      trust,
      fetch: fetchWith(issued.node),
      now: ISSUED_ON + 1000,
      ...(options.readIssuerDocument === undefined
        ? {}
        : { readIssuerDocument: options.readIssuerDocument }),
    });

  it('when the certificate names an origin you trust, which publishes its registry, then it is verified and names the account and the origin', async () => {
    const result = await verify(issuedAt(ORIGIN), trustingOrigin(ORIGIN));

    expect(result.verdict).toBe('verified');
    expect(result.issuer).toEqual({
      account: 'did:user:registrar-office',
      covered: true,
      origin: ORIGIN,
      originTrusted: true,
      registry: {
        outcome: 'listed',
        document: 'pinned',
        detail: `recorded in a registry that ${ORIGIN} publishes`,
      },
      outcome: 'trusted',
      detail: `issued by did:user:registrar-office of ${ORIGIN}, an origin you trust, and recorded in a registry it publishes`,
    });
  });

  it('when you pinned its registry yourself but do not trust the origin it names, then it is valid with the issuer not trusted, never verified', async () => {
    const result = await verify(issuedAt(ORIGIN), pinnedByYou);

    expect(result).toMatchObject({ verified: false, verdict: 'issuerUntrusted' });
    expect(result.trustpoints[0]).toMatchObject({ verdict: 'anchored', trustedThrough: 'you' });
    expect(result.issuer).toMatchObject({
      origin: ORIGIN,
      originTrusted: false,
      outcome: 'untrusted',
      registry: { outcome: 'notRead', detail: 'not read: reading it was not allowed' },
    });
    expect(requests).toEqual([]);
  });

  it('when reading is allowed and the untrusted https origin publishes the registry, then the result says so and the verdict stays issuer not trusted', async () => {
    documents.set(ORIGIN, documentOf(ORIGIN, REGISTRY.toLowerCase()));
    requests.length = 0;

    const result = await verify(issuedAt(ORIGIN), pinnedByYou, { readIssuerDocument: true });

    expect(result.verdict).toBe('issuerUntrusted');
    expect(requests).toEqual([`${ORIGIN}/.well-known/trustpoint.json`]);
    expect(result.issuer.registry).toEqual({
      outcome: 'listed',
      document: 'published',
      detail: `recorded in a registry that ${ORIGIN} (University of Examples) publishes, as its document says now; trust ${ORIGIN} to count it`,
    });
    expect(result.issuer.detail).toContain(`recorded in a registry that ${ORIGIN} publishes`);
  });

  it('when the untrusted origin publishes other registries, or serves no document, then the result says which', async () => {
    const elsewhere = 'https://other.university.example';
    documents.set(elsewhere, documentOf(elsewhere, OTHER_REGISTRY));

    const notListed = await verify(issuedAt(elsewhere), pinnedByYou, { readIssuerDocument: true });
    const missing = await verify(issuedAt('https://no-document.example'), pinnedByYou, {
      readIssuerDocument: true,
    });

    expect(notListed.issuer.registry).toMatchObject({
      outcome: 'notListed',
      document: 'published',
      detail: `${elsewhere} (University of Examples) does not publish ${REGISTRY} on network 31337`,
    });
    expect(missing.issuer.registry).toMatchObject({ outcome: 'notRead' });
    expect(missing.issuer.registry?.detail).toContain('answered HTTP 404');
    expect([notListed.verdict, missing.verdict]).toEqual(['issuerUntrusted', 'issuerUntrusted']);
  });

  it.each([
    ['an http origin', 'http://certs.university.example'],
    ['a loopback origin', 'https://127.0.0.1:8443'],
    ['a private address', 'https://10.1.2.3'],
    ['a localhost name', 'https://issuer.localhost'],
    ['localhost written with a trailing dot', 'https://localhost.:8443'],
    ['a loopback address written with a trailing dot', 'https://127.0.0.1.:8443'],
  ])(
    'when the certificate names %s, then its document is never fetched, even when reading is allowed',
    async (_, origin) => {
      documents.set(origin, documentOf(origin, REGISTRY));
      requests.length = 0;

      const result = await verify(issuedAt(origin), pinnedByYou, { readIssuerDocument: true });

      expect(requests).toEqual([]);
      expect(result.verdict).toBe('issuerUntrusted');
      expect(result.issuer.registry).toEqual({
        outcome: 'notRead',
        detail:
          'not read: an http, loopback or private origin named in a certificate is never fetched',
      });
    },
  );

  it('when you trust the origin it names but its registry is one that origin does not publish, then the issuer is not trusted', async () => {
    const trust: Trust = {
      networks: [network('you'), network(ORIGIN, OTHER_REGISTRY)],
      origins: [ORIGIN],
    };

    const result = await verify(issuedAt(ORIGIN), trust);

    expect(result.verdict).toBe('issuerUntrusted');
    expect(result.issuer).toMatchObject({
      originTrusted: true,
      outcome: 'untrusted',
      registry: { outcome: 'notListed', document: 'pinned' },
    });
    expect(result.issuer.detail).toContain(`it may be another service claiming to be ${ORIGIN}`);
  });

  it('when the origin is written with capitals and an international name, then it is shown and compared as lowercase punycode', async () => {
    const result = await verify(
      issuedAt('https://Zertifikate.Universität.example'),
      trustingOrigin('https://zertifikate.xn--universitt-y5a.example'),
    );

    expect(result.verdict).toBe('verified');
    expect(result.issuer).toMatchObject({
      origin: 'https://zertifikate.xn--universitt-y5a.example',
      given: 'https://Zertifikate.Universität.example',
      originTrusted: true,
    });
  });

  it('when a certificate names no origin, then the registry alone decides, as for version 1', async () => {
    const version1Content = { orderId: 1 };
    const hash = contentCertificateHash(version1Content);
    const issued = issuedAt(undefined);
    const v1 = {
      certID: CERT_ID,
      data: {
        name: 'Order',
        description: '',
        type: 'content',
        content: version1Content,
        issuer: 'did:user:shop',
        // Not covered by a version 1 hash: anybody's claim, so never read.
        issuerOrigin: 'https://forged.example',
        issuedOn: ISSUED_ON,
        hash,
      },
      metadata: [{ ...issued.certificate.metadata[0], trustPointHash: hash }],
    };
    const node = {
      ...issued.node,
      records: new Map([
        [encodeGetTrustPointCall(CERT_ID, ISSUED_ON + 1), trustPointResult(hash, 0)],
        [encodeRevocationOfCall(CERT_ID), `0x${word(0)}${word(0)}${word(0)}`],
      ]),
      receipts: new Map([
        [
          TRANSACTION,
          {
            status: '0x1' as const,
            blockNumber: 7,
            blockTime: 1767225603,
            logs: [trustPointRecordedLog(REGISTRY, trustPointKey(CERT_ID, ISSUED_ON + 1), hash, 0)],
          },
        ],
      ]),
    };

    const noOrigin = await verify(issued, pinnedByYou);
    const version1 = await verify({ ...issued, node }, pinnedByYou, {
      readIssuerDocument: true,
      certificate: v1,
    });

    expect(noOrigin.verdict).toBe('verified');
    expect(noOrigin.issuer).toMatchObject({
      account: 'did:user:registrar-office',
      covered: true,
      outcome: 'noOrigin',
    });
    expect(version1.verdict).toBe('verified');
    expect(version1.issuer).toMatchObject({
      account: 'did:user:shop',
      covered: false,
      outcome: 'noOrigin',
    });
    expect(version1.issuer.origin).toBeUndefined();
  });

  it('when the issuer is not trusted, then it outranks a revocation and yields to an untrusted registry, as the precedence says', async () => {
    const revoked = await verify(issuedAt(ORIGIN, true), pinnedByYou);
    const nothingTrusted = await verify(issuedAt(ORIGIN), { networks: [] });
    const trustedAndRevoked = await verify(issuedAt(ORIGIN, true), trustingOrigin(ORIGIN));

    expect(revoked.verdict).toBe('issuerUntrusted');
    expect(revoked.revoked).toBe(true);
    expect(nothingTrusted.verdict).toBe('untrusted');
    expect(trustedAndRevoked.verdict).toBe('revoked');
    expect(CERTIFICATE_VERDICT_PRECEDENCE.slice(3, 6)).toEqual([
      'untrusted',
      'issuerUntrusted',
      'revoked',
    ]);
  });
});

describe('verifyCertificate: the identity the issuer proved in the DNS', () => {
  // A real DNS server on a local port, and a real DNS-over-HTTPS endpoint asking it (standing in
  // for a public resolver such as Google's /resolve, which the pages use by default).
  let dns: LocalDns;
  const ACCOUNT = 'did:user:registrar-office';
  const DOMAIN = 'university.example';

  beforeAll(async () => {
    dns = await startLocalDns();
    const record = issuerDomainRecordValue({ origin: ORIGIN, account: ACCOUNT });
    dns.zone.set(`_trustpoint.${DOMAIN}`, ['v=spf1 -all', record]);
    dns.zone.set('_trustpoint.other-account.example', [
      issuerDomainRecordValue({ origin: ORIGIN, account: 'did:user:somebody-else' }),
    ]);
    dns.zone.set('_trustpoint.other-origin.example', [
      issuerDomainRecordValue({ origin: 'https://certs.elsewhere.example', account: ACCOUNT }),
    ]);
  });

  afterAll(async () => {
    await dns.close();
  });

  const verifyWith = (
    domain: string,
    resolveTxt: ReturnType<typeof nodeTxtResolver> | undefined,
    certificate?: unknown,
  ) => {
    const issued = issuedAt(ORIGIN, false, domain);
    return verifyCertificate({
      certificate: certificate ?? issued.certificate,
      rpc: { '31337': [NODE_URL] },
      trust: trustingOrigin(ORIGIN),
      fetch: fetchOf(issued.node),
      now: ISSUED_ON + 1000,
      ...(resolveTxt === undefined ? {} : { resolveTxt }),
    });
  };

  it("when the record names this origin and this account, then the domain is the proven identity, by Node's resolver and by DNS over HTTPS alike", async () => {
    const byNode = await verifyWith(DOMAIN, nodeTxtResolver([dns.server]));
    const byDoh = await verifyWith(DOMAIN, dnsOverHttpsTxt(dns.dohUrl));

    for (const result of [byNode, byDoh]) {
      expect(result.verdict).toBe('verified');
      expect(result.issuer.identity).toEqual({
        domain: DOMAIN,
        recordName: `_trustpoint.${DOMAIN}`,
        outcome: 'proven',
        records: [issuerDomainRecordValue({ origin: ORIGIN, account: ACCOUNT })],
        detail: `${DOMAIN} proves it: _trustpoint.${DOMAIN} names ${ORIGIN} and the account ${ACCOUNT}`,
      });
    }
    expect(
      dns.questions.filter((question) => question === `TXT _trustpoint.${DOMAIN}`),
    ).toHaveLength(2);
  });

  it.each([
    ['names another account', 'other-account.example', 'names another account of'],
    [
      'names another origin',
      'other-origin.example',
      'names another origin (https://certs.elsewhere.example)',
    ],
    ['does not exist', 'no-record.example', 'has no Trustpoint issuer record'],
  ])(
    'when the record %s, then the domain is an unproven claim and the verdict is unchanged',
    async (_, domain, why) => {
      const byNode = await verifyWith(domain, nodeTxtResolver([dns.server]));
      const byDoh = await verifyWith(domain, dnsOverHttpsTxt(dns.dohUrl));

      for (const result of [byNode, byDoh]) {
        expect(result.verdict).toBe('verified');
        expect(result.issuer.identity).toMatchObject({ domain, outcome: 'unproven' });
        expect(result.issuer.identity?.detail).toContain(why);
        expect(result.issuer.identity?.detail).toContain("are the issuer's claims, not proven");
      }
    },
  );

  it('when a copy names another domain than the one issued, then it is a mismatch: the hash covers it', async () => {
    const issued = issuedAt(ORIGIN, false, 'other-account.example');
    const claimed = {
      ...issued.certificate,
      data: { ...issued.certificate.data, issuerDomain: DOMAIN },
    };

    const result = await verifyCertificate({
      certificate: claimed,
      rpc: { '31337': [NODE_URL] },
      trust: trustingOrigin(ORIGIN),
      fetch: fetchOf(issued.node),
      resolveTxt: nodeTxtResolver([dns.server]),
    });

    expect(result.verdict).toBe('mismatch');
    expect(result.hash.matches).toBe(false);
  });

  it('when no resolver is given, or the DNS does not answer, then the domain is unchecked, a claim', async () => {
    const silent = await verifyWith(DOMAIN, undefined);
    const down = await verifyWith(DOMAIN, nodeTxtResolver(['127.0.0.1:9']));

    expect(silent.issuer.identity).toMatchObject({ outcome: 'unchecked' });
    expect(down.issuer.identity).toMatchObject({ outcome: 'unchecked' });
    expect(down.issuer.identity?.detail).toContain('could not be looked up');
    expect([silent.verdict, down.verdict]).toEqual(['verified', 'verified']);
  });

  it('when a certificate names no domain, then nothing is looked up and no identity is claimed', async () => {
    dns.questions.length = 0;

    const result = await verifyWith(
      'ignored.example',
      nodeTxtResolver([dns.server]),
      issuedAt(ORIGIN).certificate,
    );

    expect(result.issuer.identity).toBeUndefined();
    expect(dns.questions).toEqual([]);
  });

  it('reads records and domains strictly', () => {
    expect(normalizeIssuerDomain('Universität.Example.')).toBe('xn--universitt-y5a.example');
    expect(normalizeIssuerDomain('10.0.0.1')).toBeUndefined();
    expect(normalizeIssuerDomain('localhost')).toBeUndefined();
    expect(normalizeIssuerDomain('https://u.example/')).toBeUndefined();
    expect(
      parseIssuerDomainRecord(
        `trustpoint-issuer v=1 origin=HTTPS://Certs.Example.org account=${ACCOUNT}`,
      ),
    ).toEqual({ origin: 'https://certs.example.org', account: ACCOUNT });
    expect(
      parseIssuerDomainRecord(`trustpoint-issuer v=2 origin=${ORIGIN} account=${ACCOUNT}`),
    ).toBeUndefined();
    expect(parseIssuerDomainRecord(`trustpoint-issuer v=1 origin=${ORIGIN}`)).toBeUndefined();
    expect(parseIssuerDomainRecord(`v=spf1 -all`)).toBeUndefined();
  });
});
