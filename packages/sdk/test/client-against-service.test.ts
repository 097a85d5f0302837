import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { RunningTrustpoint } from '@trustpoint/launcher/launcher';
import { documentPath, type DocumentName } from '@trustpoint/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTrustpointClient,
  TrustpointApiError,
  TrustpointAuthenticationError,
  TrustpointConflictError,
  TrustpointConnectionError,
  TrustpointNotFoundError,
  TrustpointValidationError,
  type TrustpointClient,
  verifier,
} from '../src/index.js';
import { servePage, startService } from './support/running-service.js';
import { rejectionOf } from './support/rejection.js';

const NETWORK_ID = 31337;
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

let service: RunningTrustpoint;
let client: TrustpointClient;

beforeAll(async () => {
  service = await startService();
  client = createTrustpointClient({
    certUrl: new URL(service.certApiUrl).origin,
    trackUrl: service.trackApiUrl,
    token: service.token,
  });
});

afterAll(async () => {
  await service.stop();
});

describe('TrustpointClient against the running service', () => {
  it('when the service is asked for its OpenAPI documents, then they are the committed files the types are generated from', async () => {
    // Arrange: the service runs with `trustpoint start`'s defaults.
    const origin = new URL(service.certApiUrl).origin;
    const served: Record<DocumentName, string> = {
      'cert-api': `${origin}/cert/v2/openapi.json`,
      'track-api': `${service.trackApiUrl}/openapi.json`,
      'admin-api': `${origin}/admin/v1/openapi.json`,
    };

    for (const [name, url] of Object.entries(served) as [DocumentName, string][]) {
      // Act
      const answer = await fetch(url);

      // Assert
      expect(answer.status, url).toBe(200);
      expect(await answer.json(), `${url} serves packages/openapi/documents/${name}.json`).toEqual(
        JSON.parse(await readFile(documentPath(name), 'utf8')),
      );
    }
  });

  describe('certificates', () => {
    it('when a content certificate is created, then it is anchored (201) and read back by certID', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Order', description: 'an order', public: true, content: { order: randomUUID() } },
        { networkId: NETWORK_ID },
      );

      expect(created.accepted).toBe(false);
      expect(created.record.status).toBe('anchored');
      const anonymous = createTrustpointClient({ certUrl: service.certApiUrl });
      const read = await anonymous.cert.getCertificate(created.record.certID);
      expect(read.certID).toBe(created.record.certID);
      expect(read.data.type).toBe('content');
      expect(read.metadata[0]?.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    });

    it('when a file is uploaded (multipart), then the certificate holds its hash and is found by it', async () => {
      const bytes = new TextEncoder().encode(`a file ${randomUUID()}`);

      const created = await client.cert.createFileCertificate(
        {
          file: new Blob([bytes]),
          fileName: 'contract.txt',
          body: { name: 'Contract', description: 'a file' },
        },
        { networkId: NETWORK_ID },
      );

      expect(created.record.data.type).toBe('file');
      expect(created.record.data.fileHash).toBe(sha256(bytes));
      const found = await client.cert.getCertificate(sha256(bytes), { by: 'fileHash' });
      expect(found.certID).toBe(created.record.certID);
    });

    it('when an asset certificate is created, then its content names the asset', async () => {
      const assetId = `pallet-${randomUUID()}`;

      const created = await client.cert.createAssetCertificate(
        { name: 'Pallet', description: 'an asset', assetId },
        { networkId: NETWORK_ID },
      );

      expect(created.record.data.type).toBe('asset');
      expect(created.record.data.content).toMatchObject({ assetId });
    });

    it('when a URL certificate is created, then the service certifies what it fetched', async () => {
      const text = `a page ${randomUUID()}`;
      const page = await servePage(text);
      try {
        const created = await client.cert.createUrlCertificate(
          { name: 'Page', description: 'a URL', url: page.url },
          { networkId: NETWORK_ID },
        );

        expect(created.record.data.type).toBe('url');
        expect(created.record.data.content).toMatchObject({ url: page.url, size: text.length });
      } finally {
        await page.close();
      }
    });

    it('when created with Prefer respond-async, then it is accepted (202) with a Location to follow', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Async', description: 'async', content: { order: randomUUID() } },
        { networkId: NETWORK_ID, prefer: { respondAsync: true } },
      );

      expect(created.accepted).toBe(true);
      expect(created.record.status).toBe('pending');
      expect(created.location).toContain(encodeURIComponent(created.record.certID));
      expect(created.preferenceApplied).toBe('respond-async');
    });

    it('when its PDF is asked for, then a PDF document is answered', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Held', description: 'a PDF', content: { order: randomUUID() } },
        { networkId: NETWORK_ID },
      );

      const pdf = await client.cert.getCertificatePdf(created.record.certID);

      expect(new TextDecoder().decode(await pdf.slice(0, 5).arrayBuffer())).toBe('%PDF-');
    });

    it('when listed, then the page holds the certificates created', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Listed', description: 'listed', content: { order: randomUUID() } },
        { networkId: NETWORK_ID },
      );

      const page = await client.cert.listCertificates({
        type: 'content',
        order: 'desc',
        limit: 100,
      });

      expect(page.certificates.map((certificate) => certificate.certID)).toContain(
        created.record.certID,
      );
      expect(page.pagination).toBeDefined();
    });

    it('when revoked, then a Revocation trustpoint is added and the trustpoints verify', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Revoked', description: 'revoked', content: { order: randomUUID() } },
        { networkId: NETWORK_ID },
      );

      const revoked = await client.cert.revokeCertificate(created.record.certID, {
        networkId: NETWORK_ID,
      });
      const verification = await client.cert.verifyTrustpoints(created.record.certID);

      expect(revoked.metadata.map((trustpoint) => trustpoint.type)).toContain('Revocation');
      expect(verification).toMatchObject({ certID: created.record.certID, verdict: 'revoked' });
    });

    it('when the JSON saved at issuance is checked after a revocation, then the verifier with your trust and the service both find it revoked, with the chain time', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Kept', description: 'a copy kept', content: { order: randomUUID() } },
        { networkId: NETWORK_ID },
      );
      const saved = JSON.parse(JSON.stringify(created.record)) as unknown;
      const chainUrl = service.embeddedChain?.url ?? '';
      const document = verifier.readTrustDocument(
        await (
          await fetch(`${new URL(service.certApiUrl).origin}/.well-known/trustpoint.json`)
        ).json(),
      );
      // This machine's own instance: its registries may belong to the development accounts.
      const trust = verifier.trustOfDocument(document, { local: true });
      const check = () =>
        verifier.verifyCertificate({ certificate: saved, rpc: { '31337': [chainUrl] }, trust });
      const before = await check();

      await client.cert.revokeCertificate(created.record.certID, { networkId: NETWORK_ID });
      const after = await check();
      const byService = await client.cert.verifyCertificateJson(saved);
      const trustingNobody = await verifier.verifyCertificate({
        certificate: saved,
        rpc: { '31337': [chainUrl] },
      });

      expect(before.verdict).toBe('verified');
      expect(after).toMatchObject({ verdict: 'revoked', revoked: true });
      expect(after.revocation?.recordedAt).toBeGreaterThan(0);
      expect(byService).toMatchObject({ verdict: 'revoked', revoked: true });
      expect(byService.revocation?.recordedAt).toBe(after.revocation?.recordedAt);
      // No trust given, none assumed.
      expect(trustingNobody.verdict).toBe('untrusted');
    });

    it('when the registries are pinned but not the origin the certificate names, then the verifier says issuer not trusted, and the service, trusting its own origin, names it and verifies', async () => {
      const created = await client.cert.createContentCertificate(
        { name: 'Diploma', description: 'issued here', content: { student: randomUUID() } },
        { networkId: NETWORK_ID },
      );
      const document = verifier.readTrustDocument(
        await (
          await fetch(`${new URL(service.certApiUrl).origin}/.well-known/trustpoint.json`)
        ).json(),
      );
      // The service's configured public origin, which its certificates name.
      const { origin } = document;
      expect(created.record.data.issuerOrigin).toBe(origin);
      const ofService = verifier.trustOfDocument(document, { local: true });
      // The same registries, pinned by you (as --contract does): no origin is trusted.
      const registriesOnly: verifier.Trust = {
        networks: ofService.networks.map((network) => ({ ...network, pinnedBy: 'you' })),
      };
      const check = (trust: verifier.Trust) =>
        verifier.verifyCertificate({
          certificate: created.record,
          rpc: { '31337': [service.embeddedChain?.url ?? ''] },
          trust,
          readIssuerDocument: true,
        });

      const pinnedOnly = await check(registriesOnly);
      const trusting = await check(ofService);
      const byService = await client.cert.verifyCertificateJson(created.record);
      const stored = await client.cert.verifyTrustpoints(created.record.certID);

      expect(pinnedOnly.verdict).toBe('issuerUntrusted');
      expect(pinnedOnly.issuer).toMatchObject({
        origin,
        originTrusted: false,
        outcome: 'untrusted',
      });
      expect(trusting.verdict).toBe('verified');
      expect(trusting.issuer).toMatchObject({ origin, originTrusted: true, outcome: 'trusted' });
      for (const answer of [byService, stored]) {
        expect(answer.verdict).toBe('verified');
        expect(answer.issuer).toMatchObject({
          account: created.record.data.issuer,
          origin,
          originTrusted: true,
          outcome: 'trusted',
        });
      }
    });

    it('when a domain is claimed through the client, then the answer is the record to publish, it is listed, and it can be released once', async () => {
      const domain = `sdk-${randomUUID().slice(0, 8)}.example`;

      const claim = await client.cert.claimIssuerDomain(domain);
      const listed = await client.cert.listIssuerDomains();
      await client.cert.releaseIssuerDomain(domain);
      const again = await rejectionOf(client.cert.releaseIssuerDomain(domain));

      expect(claim).toMatchObject({
        domain,
        status: 'pending',
        record: { name: `_trustpoint.${domain}`, type: 'TXT' },
      });
      expect(claim.record.value).toMatch(/^trustpoint-issuer v=1 origin=\S+ account=did:user:/);
      expect(listed.map((item) => item.domain)).toContain(domain);
      expect(again).toBeInstanceOf(TrustpointNotFoundError);
    });

    describe('what the certificate hash covers (version 2)', () => {
      const chainUrl = () => service.embeddedChain?.url ?? '';
      /** This machine's own instance: its registries may belong to the development accounts. */
      const trustOfService = async () =>
        verifier.trustOfDocument(
          verifier.readTrustDocument(
            await (
              await fetch(`${new URL(service.certApiUrl).origin}/.well-known/trustpoint.json`)
            ).json(),
          ),
          { local: true },
        );
      const verifyWithOwnTrust = async (certificate: unknown) =>
        verifier.verifyCertificate({
          certificate,
          rpc: { '31337': [chainUrl()] },
          trust: await trustOfService(),
        });
      const diploma = async () =>
        (
          await client.cert.createContentCertificate(
            {
              name: 'Diploma',
              description: 'Mathematics',
              public: true,
              content: {
                student: { name: 'Ada', dateOfBirth: '1815-12-10', id: randomUUID() },
                grades: ['A', 'B', 'A'],
              },
            },
            { networkId: NETWORK_ID },
          )
        ).record;

      it.each([
        ['renamed', { name: 'Honorary doctorate' }],
        ['re-described', { description: 'Physics' }],
        ['re-issued by another issuer', { issuer: 'did:user:someone-else' }],
        ['re-dated', { issuedOn: 946_684_800_000 }],
      ])(
        'when a copy of a new certificate is %s, then it is a mismatch with the verifier and with the service',
        async (_, change) => {
          const certificate = await diploma();
          const copy = { ...certificate, data: { ...certificate.data, ...change } };

          const genuine = await verifyWithOwnTrust(certificate);
          const mine = await verifyWithOwnTrust(copy);
          const byService = await client.cert.verifyCertificateJson(copy);

          expect(genuine.verdict).toBe('verified');
          expect(genuine.hash).toMatchObject({
            version: 2,
            matches: true,
            covered: expect.arrayContaining([
              'name',
              'description',
              'issuer',
              'issuedOn',
            ]) as unknown,
          });
          expect(mine.verdict).toBe('mismatch');
          expect(mine.hash).toMatchObject({ version: 2, matches: false });
          expect(mine.hash.detail).toContain('is not the version 2 root of the fields shown');
          expect(byService.verdict).toBe('mismatch');
          expect(byService.hash).toMatchObject({ matches: false, version: 2 });
        },
      );

      it('when the holder withholds content fields, then the copy verifies with the verifier and the service, and both list what was withheld', async () => {
        const certificate = await diploma();

        const copy = verifier.withholdCertificateFields(certificate, [
          ['content', 'student', 'dateOfBirth'],
          ['content', 'grades', 1],
        ]);
        const mine = await verifyWithOwnTrust(copy);
        const byService = await client.cert.verifyCertificateJson(copy);

        expect(JSON.stringify(copy)).not.toContain('1815-12-10');
        expect(copy.data.content).toEqual({
          student: {
            name: 'Ada',
            id: (certificate.data.content as { student: { id: string } }).student.id,
          },
          grades: ['A', 'A'],
        });
        const withheld = [
          {
            kind: 'member',
            objectPath: ['content', 'student'],
            digest: expect.any(String) as unknown,
          },
          {
            kind: 'element',
            path: ['content', 'grades', 1],
            digest: expect.any(String) as unknown,
          },
        ];
        expect(mine.verdict).toBe('verified');
        expect(mine.hash.withheld).toEqual(expect.arrayContaining(withheld));
        expect(mine.hash.withheld).toHaveLength(2);
        expect(byService.verdict).toBe('verified');
        expect(byService.hash.withheld).toEqual(expect.arrayContaining(withheld));
      });

      it('when a copy drops a field that cannot be withheld, then the version 2 rule refuses it: a mismatch with the reason, with the verifier and the service', async () => {
        const certificate = await diploma();
        const { description: _description, ...withoutDescription } = certificate.data;
        const copy = { ...certificate, data: withoutDescription };

        const mine = await verifyWithOwnTrust(copy);
        const byService = await client.cert.verifyCertificateJson(copy);

        expect(() => verifier.withholdCertificateFields(certificate, [['description']])).toThrow(
          verifier.SelectiveDisclosureError,
        );
        expect(mine.verdict).toBe('mismatch');
        expect(mine.hash).toMatchObject({
          version: 2,
          matches: false,
          refusal: 'invalidCertificate',
        });
        expect(byService.verdict).toBe('mismatch');
        expect(byService.hash).toMatchObject({ matches: false, refusal: 'invalidCertificate' });
      });
    });

    it('when the answer to a creation is lost on the way back, then the client retries with the same Idempotency-Key and gets the one certificate made', async () => {
      // Arrange: a connection that drops the first answer after the service made the certificate
      const sent: string[] = [];
      let dropped = false;
      const flaky = createTrustpointClient({
        certUrl: service.certApiUrl,
        token: service.token,
        retry: { baseDelayMs: 10 },
        fetch: async (request) => {
          sent.push(request.headers.get('idempotency-key') ?? '');
          const response = await fetch(request);
          if (dropped) return response;
          dropped = true;
          await response.body?.cancel();
          throw new TypeError('fetch failed: connection reset');
        },
      });
      const content = { order: randomUUID() };

      // Act
      const created = await flaky.cert.createContentCertificate(
        { name: 'Retried', description: 'lost answer', content },
        { networkId: NETWORK_ID },
      );

      // Assert
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(sent[1]).toBe(sent[0]);
      const page = await client.cert.listCertificates({ type: 'content', limit: 100 });
      const same = page.certificates.filter(
        (certificate) => JSON.stringify(certificate.data?.content) === JSON.stringify(content),
      );
      expect(same.map((certificate) => certificate.certID)).toEqual([created.record.certID]);
    });

    it('when a creation is made again with the same idempotencyKey (a client resuming), then the first certificate comes back', async () => {
      const key = randomUUID();
      const body = { name: 'Resumed', description: '', content: { order: randomUUID() } };

      const first = await client.cert.createContentCertificate(body, {
        networkId: NETWORK_ID,
        idempotencyKey: key,
      });
      const again = await client.cert.createContentCertificate(body, {
        networkId: NETWORK_ID,
        idempotencyKey: key,
      });

      expect(again.record.certID).toBe(first.record.certID);
    });

    it('when the networks are listed by either API, then the answer is the record itself, the embedded chain in it', async () => {
      const [cert, track] = await Promise.all([
        client.cert.listNetworks(),
        client.track.listNetworks(),
      ]);

      for (const networks of [cert, track]) {
        expect(networks.networks.map((network) => network.networkId)).toContain(NETWORK_ID);
      }
    });
  });

  describe('assets and evidences', () => {
    it('when an asset gets an evidence, then both are read back and the evidence by its hash', async () => {
      const created = await client.track.createAsset({
        assetId: `container-${randomUUID()}`,
        data: { kind: 'container' },
        networkId: NETWORK_ID,
      });
      const evidence = await client.track.addEvidence(created.record.trackID, {
        metadata: { event: 'loaded' },
      });

      const asset = await client.track.getAsset(created.record.trackID);
      const byHash = await client.track.getEvidence(evidence.record.hash);

      expect(asset.transactions.map((transaction) => transaction.hash)).toContain(
        evidence.record.hash,
      );
      expect(JSON.stringify(byHash)).toContain(evidence.record.hash);
      const page = await client.track.listAssets();
      expect(JSON.stringify(page)).toContain(created.record.trackID);
    });
  });

  describe('the account', () => {
    it('when the caller reads their account, then it shows their credits, plan, networks and full scopes, from either API', async () => {
      // Act
      const account = await client.cert.getAccount();
      const fromTrack = await client.track.getAccount();
      const movements = await client.cert.listCreditMovements({ limit: 5 });

      // Assert
      expect(account.credits).toEqual(expect.any(Number));
      expect(account.plan.networkIds).toContain(String(NETWORK_ID));
      expect(account.credential.scopes).toEqual([
        'read',
        'certify',
        'track',
        'keys',
        'webhooks',
        'admin',
      ]);
      expect(fromTrack.userId).toBe(account.userId);
      expect(movements.balance).toBe(account.credits);
      expect(movements.pagination).toMatchObject({ offset: 0, limit: 5 });
    });
  });

  describe('typed errors', () => {
    it('when the token is wrong, then a TrustpointAuthenticationError (401)', async () => {
      const stranger = createTrustpointClient({
        certUrl: service.certApiUrl,
        token: 'not-a-token',
      });

      const error = await rejectionOf(stranger.cert.listCertificates());

      expect(error).toBeInstanceOf(TrustpointAuthenticationError);
      expect(error).toMatchObject({
        status: 401,
        kind: 'authentication',
        type: 'Authentication Error',
      });
    });

    it('when the certificate does not exist, then a TrustpointNotFoundError (404)', async () => {
      const error = await rejectionOf(
        client.cert.getCertificate(`did:trustpoint:certid:${randomUUID()}`),
      );

      expect(error).toBeInstanceOf(TrustpointNotFoundError);
      expect(error).toBeInstanceOf(TrustpointApiError);
      expect(error).toMatchObject({ status: 404, kind: 'notFound' });
    });

    it('when the body is invalid, then a TrustpointValidationError (400) with its field errors', async () => {
      const error = await rejectionOf(
        client.cert.createContentCertificate(
          // What a caller without types could send: no name.
          { description: 'no name', content: {} } as never,
          { networkId: NETWORK_ID },
        ),
      );

      expect(error).toBeInstanceOf(TrustpointValidationError);
      const validation = error as TrustpointValidationError;
      expect(validation.status).toBe(400);
      expect(validation.message).toBe('Request parameters are wrong, check requirements');
      expect(validation.fieldErrors.map((fieldError) => fieldError.field)).toContain('body.name');
    });

    it('when the same content is certified twice, then a TrustpointConflictError (409)', async () => {
      const body = { name: 'Twice', description: 'twice', content: { order: randomUUID() } };
      await client.cert.createContentCertificate(body, { networkId: NETWORK_ID });

      const error = await rejectionOf(
        client.cert.createContentCertificate(body, { networkId: NETWORK_ID }),
      );

      expect(error).toBeInstanceOf(TrustpointConflictError);
      expect(error).toMatchObject({ status: 409, type: 'Existing certificate error' });
    });

    it('when nothing listens, then a TrustpointConnectionError', async () => {
      const nowhere = createTrustpointClient({ certUrl: 'http://127.0.0.1:9' });

      const error = await rejectionOf(nowhere.cert.listNetworks());

      expect(error).toBeInstanceOf(TrustpointConnectionError);
    });
  });
});
