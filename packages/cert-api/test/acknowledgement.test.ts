import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  certificateSchema,
  decodeGetTrustPointResponse,
  getTrustPointRequest,
  type Certificate,
} from '@trustpoint/domain';
import { HARDHAT_DEV_KEY, holdMining, jsonRpcCall, resumeMining } from '@trustpoint/contracts';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const CREATE = '/cert/v2/certificates?type=content&networkId=31337';

// Asynchronous acknowledgement (RFC 7240 `Prefer`) on a node whose mining the tests hold back, as
// a real network's block time does: a certificate is acknowledged pending, then anchored.
describe.each(testBackends())('Acknowledgement of certificates on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const read = async (location: string, token: string): Promise<Certificate> => {
    const response = await request(api.app).get(location).set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(200);
    return certificateSchema.parse(response.body.data);
  };

  /** The certificate at `location` once anchored; fails after 20 s. */
  const untilAnchored = async (location: string, token: string): Promise<Certificate> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const certificate = await read(location, token);
      if (certificate.status === 'anchored' || Date.now() > deadline) return certificate;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const onChain = async (certificate: Certificate) => {
    const [trustpoint] = certificate.metadata;
    const reply = await fetch(api.chain.url, {
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
    return decodeGetTrustPointResponse(await reply.json());
  };

  it('when a client prefers respond-async, then 202 at once with the certificate pending and its Location, and it is anchored later', async () => {
    const { id, token } = await api.user({ credits: 2 });
    await holdMining(api.chain.url, api.chain.writeHeaders);
    let location = '';
    try {
      const started = Date.now();
      const response = await request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Prefer', 'respond-async')
        .send({ name: 'Async', description: '', content: { n: Math.random() } });

      expect(response.status).toBe(202);
      // Well under the 30 s a request waits for its record by default; the first checked request
      // of a file also builds the OpenAPI checker, which a loaded machine takes seconds over.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(response.headers['preference-applied']).toBe('respond-async');
      expect(response.headers.vary).toMatch(/prefer/i);
      const certificate = certificateSchema.parse(response.body.data);
      location = String(response.headers.location);
      expect(location).toBe(
        `/cert/v2/certificates/certID/${encodeURIComponent(certificate.certID)}`,
      );
      expect(certificate.status).toBe('pending');
      expect(certificate.metadata).toEqual([
        expect.objectContaining({ type: 'Evidence', status: 'pending' }),
      ]);
      expect(certificate.metadata[0]).not.toHaveProperty('transactionHash');
      expect(await findCreditBalance(api.db.knex, id)).toBe(1);
      expect((await read(location, token)).status).toBe('pending');
    } finally {
      await resumeMining(api.chain.url, api.chain.writeHeaders);
    }

    const anchored = await untilAnchored(location, token);
    expect(anchored.status).toBe('anchored');
    expect(anchored.metadata[0]).toMatchObject({
      status: 'anchored',
      smartContract: api.network.trustPointRegistry,
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as unknown,
    });
    expect(await onChain(anchored)).toEqual({
      found: true,
      hash: anchored.data.hash,
      type: 'Evidence',
    });
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
  });

  it('when certificates are pending or anchored, then GET /certificates filters by status', async () => {
    const { token } = await api.user({ credits: 3 });
    const anchored = await api.certify(token);
    await holdMining(api.chain.url, api.chain.writeHeaders);
    let pendingId = '';
    try {
      const accepted = await request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Prefer', 'respond-async')
        .send({ name: 'Pending', description: '', content: { n: Math.random() } });
      expect(accepted.status).toBe(202);
      pendingId = String(accepted.body.data.certID);

      const list = async (status: string) => {
        const response = await request(api.app)
          .get(`/cert/v2/certificates?status=${status}`)
          .set('Authorization', `Bearer ${token}`);
        expect(response.status).toBe(200);
        return {
          ids: (response.body.data.certificates as { certID: string }[]).map((c) => c.certID),
          total: Number(response.body.data.pagination.total),
        };
      };
      expect(await list('pending')).toEqual({ ids: [pendingId], total: 1 });
      expect(await list('anchored')).toEqual({ ids: [anchored.certID], total: 1 });
      expect(await list('failed')).toEqual({ ids: [], total: 0 });
    } finally {
      await resumeMining(api.chain.url, api.chain.writeHeaders);
    }
    const settled = await untilAnchored(
      `/cert/v2/certificates/certID/${encodeURIComponent(pendingId)}`,
      token,
    );
    expect(settled.status).toBe('anchored');
    const all = await request(api.app)
      .get('/cert/v2/certificates?status=anchored')
      .set('Authorization', `Bearer ${token}`);
    expect(all.body.data.pagination.total).toBe(2);
  });

  it('when a synchronous wait ends after the batch was sent, then 202 with the certificate pending, never a 503 that a retry would turn into a 409', async () => {
    const { id, token } = await api.user({ credits: 2 });
    const body = { name: 'Slow block', description: '', content: { n: Math.random() } };
    await holdMining(api.chain.url, api.chain.writeHeaders);
    let location = '';
    try {
      const response = await request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Prefer', 'wait=3')
        .send(body);

      expect(response.status).toBe(202);
      expect(response.headers['preference-applied']).toBeUndefined();
      location = String(response.headers.location);
      expect(response.body.data.status).toBe('pending');
    } finally {
      await resumeMining(api.chain.url, api.chain.writeHeaders);
    }
    expect((await untilAnchored(location, token)).status).toBe('anchored');
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
    const retry = await request(api.app)
      .post(CREATE)
      .set('Authorization', `Bearer ${token}`)
      .send(body);
    expect(retry.status).toBe(409);
  });

  it('when a client prefers a wait the chain meets, then 201 with the certificate anchored', async () => {
    const { token } = await api.user();

    const response = await request(api.app)
      .post(CREATE)
      .set('Authorization', `Bearer ${token}`)
      .set('Prefer', 'respond-async, wait=30')
      .send({ name: 'Quick', description: '', content: { n: Math.random() } });

    expect(response.status).toBe(201);
    expect(response.headers.location).toBeUndefined();
    expect(response.body.data.status).toBe('anchored');
  });
  it('when the network acknowledges asynchronously, then a request without Prefer gets 202, and one preferring a wait still gets 201', async () => {
    const { token } = await api.user({ credits: 2 });
    // The registry holds this very object: what a networks file's `acknowledgement` sets.
    api.network.acknowledgement = 'async';
    try {
      const plain = await request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'Default', description: '', content: { n: Math.random() } });
      const waiting = await request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Prefer', 'wait=30')
        .send({ name: 'Waits', description: '', content: { n: Math.random() } });

      expect(plain.status).toBe(202);
      expect(plain.headers['preference-applied']).toBeUndefined();
      expect(plain.headers.location).toMatch(/^\/cert\/v2\/certificates\/certID\//);
      expect(waiting.status).toBe(201);
      expect((await untilAnchored(String(plain.headers.location), token)).status).toBe('anchored');
    } finally {
      delete api.network.acknowledgement;
    }
  });
  it('when the registrar cannot pay, then a synchronous request fails fast with 503 and stores nothing, an asynchronous one is accepted and waits, and both queued ones are anchored once it is funded', async () => {
    const { id, token } = await api.user({ credits: 3 });
    const registrar = new Wallet(HARDHAT_DEV_KEY).address;
    const funds = await jsonRpcCall(api.chain.url, 'eth_getBalance', [registrar, 'latest']);
    const asyncCreate = () =>
      request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Prefer', 'respond-async')
        .send({ name: 'Unfunded', description: '', content: { n: Math.random() } });
    await jsonRpcCall(
      api.chain.url,
      'hardhat_setBalance',
      [registrar, '0x0'],
      api.chain.writeHeaders,
    );
    const locations: string[] = [];
    try {
      // The anchorer finds the empty balance when it next looks (before a batch, or idle).
      const first = await asyncCreate();
      expect(first.status).toBe(202);
      locations.push(String(first.headers.location));
      const deadline = Date.now() + 20_000;
      while (api.engine.networkHealth('31337').state !== 'notReady' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(api.engine.networkHealth('31337').state).toBe('notReady');

      const started = Date.now();
      const sync = await request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'Waits', description: '', content: { n: Math.random() } });
      const second = await asyncCreate();

      expect(sync.status).toBe(503);
      // Well under the 30 s a request waits for its record by default; the first checked request
      // of a file also builds the OpenAPI checker, which a loaded machine takes seconds over.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(second.status).toBe(202);
      locations.push(String(second.headers.location));
      expect(await findCreditBalance(api.db.knex, id)).toBe(1);
    } finally {
      await jsonRpcCall(
        api.chain.url,
        'hardhat_setBalance',
        [registrar, funds],
        api.chain.writeHeaders,
      );
    }
    for (const location of locations) {
      expect((await untilAnchored(location, token)).status).toBe('anchored');
    }
    expect(api.engine.networkHealth('31337').state).toBe('ready');
  });
});
