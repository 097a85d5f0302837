import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { anchoredVersion1Certificate } from '@trustpoint/test-kit/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const MOVEMENTS = '/cert/v2/account/credit-movements';

interface Movement {
  id: number;
  kind: string;
  amount: number;
  balanceAfter: number;
  reason: string | null;
  requestId: string | null;
  spentOn: { operation: string; certID?: string; timestamp?: number } | null;
  refundOf: number | null;
}

interface MovementPage {
  balance: number;
  movements: Movement[];
  pagination: { offset: number; limit: number; total: number; order: string };
}

/** One page of the caller's ledger, through the API (its answer checked against the document). */
async function page(api: CertApiFixture, token: string, query = ''): Promise<MovementPage> {
  const response = await request(api.app)
    .get(`${MOVEMENTS}${query}`)
    .set('Authorization', `Bearer ${token}`);
  expect(response.status).toBe(200);
  return response.body.data as MovementPage;
}

/** The whole ledger, oldest first, a page of 7 at a time, each balance following from the last. */
async function wholeLedger(api: CertApiFixture, token: string): Promise<Movement[]> {
  const rows: Movement[] = [];
  let total = Infinity;
  let balance = 0;
  while (rows.length < total) {
    const next = await page(api, token, `?order=asc&limit=7&offset=${String(rows.length)}`);
    total = next.pagination.total;
    balance = next.balance;
    if (next.movements.length === 0) break;
    rows.push(...next.movements);
  }
  let running = 0;
  for (const row of rows) {
    running += row.amount;
    expect(row.balanceAfter).toBe(running);
  }
  expect(running).toBe(balance);
  return rows;
}

/** A site whose one page a URL certificate can fetch. */
async function startSite() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('a page worth certifying');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/page`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.each(testBackends())("the caller's credit movements on %s", (backend) => {
  let api: CertApiFixture;
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
    api = await startCertApi(backend, { urlFetch: { allowAddresses: ['127.0.0.1'] } });
  });

  afterAll(async () => {
    await api.close();
    await site.close();
  });

  const post = (token: string, query: string, requestId: string) =>
    request(api.app)
      .post(`/cert/v2/certificates?${query}`)
      .set('Authorization', `Bearer ${token}`)
      .set('X-Request-Id', requestId);

  it('when a customer makes certificates of every type, signs, re-anchors and revokes, then each spend is listed in order with its operation and certID, the revocation and the signature of a qualified creation cost nothing, and the balances add up', async () => {
    // Arrange
    const owner = await api.user({ credits: 10, qualified: true });
    const version1 = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, {
      n: randomUUID(),
    });
    const body = (name: string) => ({ name, description: '', content: { n: randomUUID() } });

    // Act
    const content = await post(owner.token, 'type=content&networkId=31337', 'r-content').send(
      body('content'),
    );
    const file = await post(owner.token, 'type=file&networkId=31337', 'r-file')
      .attach('fileInput', randomBytes(64), { filename: 'a.bin' })
      .field('body', JSON.stringify(body('file')));
    const asset = await post(owner.token, 'type=asset&networkId=31337', 'r-asset').send({
      ...body('asset'),
      assetId: `pallet-${randomUUID()}`,
    });
    const url = await post(owner.token, 'type=url&networkId=31337', 'r-url').send({
      name: 'url',
      description: '',
      url: site.url,
    });
    const qualified = await post(
      owner.token,
      'type=content&networkId=31337&qualified=true',
      'r-qualified',
    ).send(body('qualified'));
    const certIdOf = (response: { body: { data: { certID: string } } }) =>
      response.body.data.certID;
    const signed = await request(api.app)
      .post(`/cert/v2/certificates/certID/${certIdOf(content)}/signature?networkId=31337`)
      .set('Authorization', `Bearer ${owner.token}`);
    const reanchored = await request(api.app)
      .post(`/cert/v2/certificates/certID/${version1}/reanchor`)
      .set('Authorization', `Bearer ${owner.token}`);
    const revoked = await request(api.app)
      .patch(`/cert/v2/certificates/certID/${certIdOf(file)}/revoke?networkId=31337`)
      .set('Authorization', `Bearer ${owner.token}`);

    // Assert
    expect([content, file, asset, url, qualified, signed, reanchored].map((r) => r.status)).toEqual(
      [201, 201, 201, 201, 201, 201, 201],
    );
    expect(revoked.status).toBe(200);
    const ledger = await wholeLedger(api, owner.token);
    const signature = (signed.body.data.metadata as { type: string; timestamp: number }[]).find(
      (trustpoint) => trustpoint.type === 'Signature',
    );
    const reanchoring = (reanchored.body.data.metadata as { type: string; timestamp: number }[]).at(
      -1,
    );
    expect(ledger.map((row) => [row.kind, row.amount, row.spentOn, row.requestId])).toEqual([
      ['initial', 10, null, null],
      ['spend', -1, { operation: 'certificate.create', certID: certIdOf(content) }, 'r-content'],
      ['spend', -1, { operation: 'certificate.create', certID: certIdOf(file) }, 'r-file'],
      ['spend', -1, { operation: 'certificate.create', certID: certIdOf(asset) }, 'r-asset'],
      ['spend', -1, { operation: 'certificate.create', certID: certIdOf(url) }, 'r-url'],
      [
        'spend',
        -1,
        { operation: 'certificate.create', certID: certIdOf(qualified) },
        'r-qualified',
      ],
      [
        'spend',
        -1,
        {
          operation: 'certificate.sign',
          certID: certIdOf(content),
          timestamp: signature?.timestamp,
        },
        expect.any(String),
      ],
      [
        'spend',
        -1,
        { operation: 'certificate.reanchor', certID: version1, timestamp: reanchoring?.timestamp },
        expect.any(String),
      ],
    ]);
    expect(ledger.at(-1)?.balanceAfter).toBe(3);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(3);
    const newest = await page(api, owner.token, '?limit=2');
    expect(newest.movements).toEqual([ledger[7], ledger[6]]);
    expect(newest.pagination).toEqual({ offset: 0, limit: 2, total: 8, order: 'desc' });
  });

  it('when certificates are created at once and the ledger is read meanwhile, then each read is the ledger as it stood, and in the end every certificate is one spend', async () => {
    // Arrange
    const owner = await api.user({ credits: 40 });
    const other = await api.user({ credits: 5 });

    // Act
    const reads: Promise<MovementPage>[] = [];
    const created = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        if (index % 3 === 0) reads.push(page(api, owner.token, '?limit=5'));
        const response = await post(
          owner.token,
          'type=content&networkId=31337',
          `burst-${String(index)}`,
        ).send({ name: 'burst', description: '', content: { n: randomUUID() } });
        return response;
      }),
    );
    const seen = await Promise.all(reads);

    // Assert
    expect(created.map((response) => response.status)).toEqual(created.map(() => 201));
    const ledger = await wholeLedger(api, owner.token);
    expect(ledger).toHaveLength(31);
    expect(
      ledger
        .slice(1)
        .map((row) => row.spentOn?.certID)
        .sort(),
    ).toEqual(created.map((response) => response.body.data.certID as string).sort());
    for (const read of seen) {
      const { total } = read.pagination;
      expect(read.movements).toEqual(ledger.slice(Math.max(0, total - 5), total).reverse());
    }
    const theirs = await wholeLedger(api, other.token);
    expect(theirs.map((row) => row.kind)).toEqual(['initial']);
  });

  it('when the page asked for is not one, then 400 with the spec error body naming the parameter', async () => {
    // Arrange
    const owner = await api.user();

    // Act
    const responses = await Promise.all(
      ['?limit=0', '?offset=-1', '?order=sideways', '?limit=abc'].map((query) =>
        request(api.app).get(`${MOVEMENTS}${query}`).set('Authorization', `Bearer ${owner.token}`),
      ),
    );

    // Assert
    for (const response of responses) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        statusCode: 400,
        type: 'Validation Error',
        errors: [expect.objectContaining({ field: expect.stringMatching(/^query\./) as string })],
      });
    }
  });
});

describe.each(testBackends())('a withdrawn creation in the credit movements on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    // The chain answers nowhere: a synchronous creation waits, then is withdrawn (503).
    api = await startCertApi(backend, {
      anchorTimeoutMs: 1_500,
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
  });

  afterAll(async () => {
    await api.close();
  });

  it('when a creation is withdrawn after the synchronous wait, then its spend stays listed and the refund after it names it', async () => {
    // Arrange
    const owner = await api.user({ credits: 2 });

    // Act
    const response = await request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337')
      .set('Authorization', `Bearer ${owner.token}`)
      .set('X-Request-Id', 'withdrawn-1')
      .send({ name: 'Later', description: '', content: { n: randomUUID() } });

    // Assert
    expect(response.status).toBe(503);
    const ledger = await wholeLedger(api, owner.token);
    expect(ledger.map((row) => [row.kind, row.amount, row.balanceAfter])).toEqual([
      ['initial', 2, 2],
      ['spend', -1, 1],
      ['refund', 1, 2],
    ]);
    const [, spent, refund] = ledger;
    expect(spent).toMatchObject({
      requestId: 'withdrawn-1',
      spentOn: { operation: 'certificate.create' },
    });
    expect(refund).toMatchObject({
      reason: 'certificate creation withdrawn',
      refundOf: spent?.id,
      spentOn: spent?.spentOn,
    });
    const gone = await request(api.app)
      .get(`/cert/v2/certificates/certID/${spent?.spentOn?.certID ?? ''}`)
      .set('Authorization', `Bearer ${owner.token}`);
    expect(gone.status).toBe(404);
  });
});
