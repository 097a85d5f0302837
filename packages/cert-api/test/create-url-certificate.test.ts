import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  certificateSchema,
  decodeGetTrustPointResponse,
  getTrustPointRequest,
  readDisclosableCertificate,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const doubleHashHex = (bytes: Buffer) =>
  createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest('hex');

const MAX_BYTES = 64 * 1024;
const TOTAL_TIMEOUT_MS = 1_500;
const REFUSED = /non-public address/;

/** A local web server whose pages play the parts the tests need. */
async function startSite() {
  const page = randomBytes(10_000);
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://localhost');
    switch (url.pathname) {
      case '/page':
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        res.end(page);
        return;
      case '/moved':
        res.writeHead(302, { Location: '/page' });
        res.end();
        return;
      case '/to-private':
        res.writeHead(302, { Location: 'http://10.0.0.1/secret' });
        res.end();
        return;
      case '/to-metadata':
        res.writeHead(307, { Location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
        return;
      case '/loop':
        res.writeHead(302, { Location: '/loop' });
        res.end();
        return;
      case '/big':
        // No Content-Length: only counting the bytes can stop it.
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        for (let i = 0; i < 4; i += 1) res.write(randomBytes(MAX_BYTES / 2));
        res.end();
        return;
      case '/slow':
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('first bytes, then nothing');
        return;
      default:
        res.writeHead(404);
        res.end('not here');
    }
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    page,
    /** How many requests the site has answered. */
    requests: () => requests,
    url: (path: string) => `http://127.0.0.1:${String(port)}${path}`,
    port,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

type Site = Awaited<ReturnType<typeof startSite>>;

function certifyUrl(api: CertApiFixture, token: string, url: string, extra = {}) {
  return request(api.app)
    .post('/cert/v2/certificates?type=url&networkId=31337')
    .set('Authorization', `Bearer ${token}`)
    .send({ name: 'Page', description: '', url, ...extra });
}

describe.each(testBackends())('POST /certificates?type=url on %s', (backend) => {
  let strict: CertApiFixture;
  let allowing: CertApiFixture;
  let site: Site;

  beforeAll(async () => {
    site = await startSite();
    strict = await startCertApi(backend);
    allowing = await startCertApi(backend, {
      urlFetch: {
        allowAddresses: ['127.0.0.1'],
        maxBytes: MAX_BYTES,
        totalTimeoutMs: TOTAL_TIMEOUT_MS,
      },
    });
  });

  afterAll(async () => {
    await strict.close();
    await allowing.close();
    await site.close();
  });

  it('when an allowed URL is certified, then data.fileHash is the sha256 of its bytes, data.hash the version 2 root over it, content says what was fetched, and it is on chain', async () => {
    // Arrange
    const { id, token } = await allowing.user({ credits: 2 });
    const before = Date.now();

    // Act
    const response = await certifyUrl(allowing, token, site.url('/page'));

    // Assert
    expect(response.status).toBe(201);
    const certificate = certificateSchema.parse(response.body.data);
    expect(certificate.data.type).toBe('url');
    expect(certificate.data.fileHash).toBe(createHash('sha256').update(site.page).digest('hex'));
    expect(readDisclosableCertificate(certificate)).toMatchObject({
      hash: certificate.data.hash,
      withheld: [],
    });
    expect(certificate.data.content).toEqual({
      url: site.url('/page'),
      mediaType: 'application/octet-stream',
      size: site.page.length,
      fetchedAt: expect.any(Number),
    });
    expect(certificate.data.content.fetchedAt).toBeGreaterThanOrEqual(before);
    expect(await findCreditBalance(allowing.db.knex, id)).toBe(1);
    const [trustpoint] = certificate.metadata;
    const rpc = await fetch(allowing.chain.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        getTrustPointRequest({
          smartContract: trustpoint?.smartContract ?? '',
          certId: certificate.certID,
          timestampMs: trustpoint?.timestamp ?? 0,
        }),
      ),
    });
    expect(decodeGetTrustPointResponse(await rpc.json())).toEqual({
      found: true,
      hash: certificate.data.hash,
      type: 'Evidence',
    });
    // The unsalted digest of the bytes still finds it.
    const found = await request(allowing.app)
      .get(`/cert/v2/certificates/hash/${doubleHashHex(site.page)}`)
      .set('Authorization', `Bearer ${token}`);
    expect(found.body.data.certID).toBe(certificate.certID);
  });

  it('when an allowed URL redirects within the allowed addresses, then the final page is certified and recorded', async () => {
    // Arrange
    const { token } = await allowing.user();

    // Act
    const response = await certifyUrl(allowing, token, site.url('/moved'), { externalId: 'moved' });

    // Assert
    expect(response.status).toBe(201);
    expect(response.body.data.data.content.finalUrl).toBe(site.url('/page'));
    expect(response.body.data.data.fileHash).toBe(
      createHash('sha256').update(site.page).digest('hex'),
    );
  });

  it.each([
    ['loopback by address', (s: Site) => s.url('/page')],
    ['loopback by name', (s: Site) => `http://localhost:${String(s.port)}/page`],
    ['IPv6 loopback', (s: Site) => `http://[::1]:${String(s.port)}/page`],
    ['a private address', () => 'http://10.0.0.1/'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['the unspecified address', () => 'http://0.0.0.0/'],
  ])(
    'when the URL leads to %s with the default settings, then 400 on body.url and nothing is spent',
    async (_case, target) => {
      // Arrange
      const { id, token } = await strict.user({ credits: 1 });

      // Act
      const response = await certifyUrl(strict, token, target(site));

      // Assert
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        { field: 'body.url', error: expect.stringMatching(REFUSED) },
      ]);
      expect(await findCreditBalance(strict.db.knex, id)).toBe(1);
      expect(await strict.db.knex('certificates').where('user_id', id)).toEqual([]);
    },
  );

  it.each([
    ['a private address', '/to-private'],
    ['the cloud metadata address', '/to-metadata'],
  ])('when an allowed URL redirects to %s, then the hop is refused', async (_case, path) => {
    // Arrange
    const { token } = await allowing.user();

    // Act
    const response = await certifyUrl(allowing, token, site.url(path));

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { field: 'body.url', error: expect.stringMatching(REFUSED) },
    ]);
  });

  it('when a URL redirects more than 5 times, then 400 says so', async () => {
    // Arrange
    const { token } = await allowing.user();

    // Act
    const response = await certifyUrl(allowing, token, site.url('/loop'));

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors[0].error).toMatch(/redirects more than 5 times/);
  });

  it('when a URL answers more than the size limit, then 400 says so and nothing is spent', async () => {
    // Arrange
    const { id, token } = await allowing.user({ credits: 1 });

    // Act
    const response = await certifyUrl(allowing, token, site.url('/big'));

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toEqual({
      field: 'body.url',
      error: `The URL answered more than ${String(MAX_BYTES)} bytes`,
    });
    expect(await findCreditBalance(allowing.db.knex, id)).toBe(1);
  });

  it('when a URL stops answering, then 400 after the total timeout, not a hang', async () => {
    // Arrange
    const { token } = await allowing.user();
    const started = Date.now();

    // Act
    const response = await certifyUrl(allowing, token, site.url('/slow'));

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors[0].error).toBe(
      `The URL did not answer within ${String(TOTAL_TIMEOUT_MS)} ms`,
    );
    expect(Date.now() - started).toBeLessThan(TOTAL_TIMEOUT_MS + 5_000);
  });

  it('when a URL answers an error status, then 400 names the status', async () => {
    // Arrange
    const { token } = await allowing.user();

    // Act
    const response = await certifyUrl(allowing, token, site.url('/missing'));

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors[0].error).toBe('The URL answered HTTP 404, not a success');
  });

  it('when the URL is not http or https, then 400 before anything is fetched', async () => {
    // Arrange
    const { token } = await allowing.user();

    // Act
    const response = await certifyUrl(allowing, token, 'ftp://127.0.0.1/file');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('body.url');
  });

  it('when expires is not later than now, then 400 on body.expires before anything is fetched', async () => {
    // Arrange
    const { id, token } = await allowing.user({ credits: 2 });
    const before = site.requests();

    // Act
    const response = await certifyUrl(allowing, token, site.url('/page'), {
      expires: Math.floor(Date.now() / 1000),
    });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { field: 'body.expires', error: 'Must be later than now, in milliseconds since the epoch' },
    ]);
    expect(site.requests()).toBe(before);
    expect(await findCreditBalance(allowing.db.knex, id)).toBe(2);
  });

  it('when the user has no credit left, then 429 before anything is fetched', async () => {
    // Arrange
    const { token } = await allowing.user({ credits: 0 });

    // Act
    const response = await certifyUrl(allowing, token, site.url('/page'));

    // Assert
    expect(response.status).toBe(429);
  });
});
