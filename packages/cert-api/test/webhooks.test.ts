import { testBackends } from '@trustpoint/test-database';
import { deliveringWebhooks } from '@trustpoint/test-kit/suites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const ENDPOINTS = '/cert/v2/webhooks/endpoints';
const CREATE = '/cert/v2/certificates?type=content&networkId=31337';

// Webhooks end to end: a real receiver on 127.0.0.1 (allowed by the fixture) that fails its
// first attempts and checks every signature with standardwebhooks, a worker with short backoff.
describe.each(testBackends())('Webhooks of the certificate API on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  /** Delivers its webhooks; `endpointFor` makes a receiver and an endpoint of a user at it. */
  const { endpointFor } = deliveringWebhooks(
    () => ({ agent: request(api.app), knex: api.db.knex, webhooks: api.webhooks }),
    '/cert/v2',
  );

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  it('when an endpoint is created, then its secret is shown once and the list shows it without', async () => {
    const { token } = await api.user();
    const { endpoint, receiver } = await endpointFor(token, {
      events: ['trustpoint.anchored'],
      description: 'CI',
    });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const list = await request(api.app).get(ENDPOINTS).set(auth(token));
    expect(list.status).toBe(200);
    expect(list.body.data.endpoints).toEqual([
      {
        id: endpoint.id,
        url: receiver.url,
        description: 'CI',
        events: ['trustpoint.anchored'],
        createdAt: expect.any(String) as unknown,
      },
    ]);
    const stored = await api.db.knex('webhook_endpoints').where({ id: endpoint.id }).first();
    expect(JSON.stringify(stored)).not.toContain(endpoint.secret.slice(6));
  });

  it('when a certificate is created asynchronously, then trustpoint.anchored is delivered, signed, after failed attempts', async () => {
    // Arrange
    const { token } = await api.user();
    const { receiver, endpoint } = await endpointFor(token, {}, 2);
    // Act
    const accepted = await request(api.app)
      .post(CREATE)
      .set(auth(token))
      .set('Prefer', 'respond-async')
      .send({ name: 'Hooked', description: '', content: { n: Math.random() } });
    expect(accepted.status).toBe(202);
    const certID = String(accepted.body.data.certID);
    // Assert
    const delivered = await receiver.waitFor((w) => w.status === 204);
    expect(receiver.received.map((w) => w.status)).toEqual([500, 500, 204]);
    expect(delivered.verified?.type).toBe('trustpoint.anchored');
    expect(delivered.verified?.data).toMatchObject({
      certID,
      trustpoint: {
        type: 'Evidence',
        networkId: 31337,
        smartContract: api.network.trustPointRegistry,
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as unknown,
        trustPointHash: accepted.body.data.data.hash as unknown,
      },
    });
    // The log: three attempts, newest first.
    await expect
      .poll(async () => {
        const log = await request(api.app)
          .get(`${ENDPOINTS}/${endpoint.id}/attempts`)
          .set(auth(token));
        return (log.body.data.attempts as { statusCode: number }[]).map((a) => a.statusCode);
      })
      .toEqual([204, 500, 500]);
  });

  it('when a certificate is revoked, then certificate.revoked is delivered', async () => {
    const { token } = await api.user();
    const { receiver } = await endpointFor(token, { events: ['certificate.revoked'] });
    const created = await api.certify(token);
    const revoked = await request(api.app)
      .patch(
        `/cert/v2/certificates/certID/${encodeURIComponent(created.certID)}/revoke?networkId=31337`,
      )
      .set(auth(token));
    expect(revoked.status).toBe(200);
    const delivered = await receiver.waitFor((w) => w.verified?.type === 'certificate.revoked');
    expect(delivered.verified?.data).toMatchObject({
      certID: created.certID,
      revokedAt: expect.any(Number) as unknown,
    });
    // Only the type asked for: not the anchoring of the certificate or of its revocation.
    expect(receiver.received.every((w) => w.verified?.type === 'certificate.revoked')).toBe(true);
  });

  it('when a trustpoint’s anchor record fails, then trustpoint.failed is delivered with the reason', async () => {
    // Arrange: a trustpoint queued on a network no engine serves, then failed as the engine does.
    const { id, token } = await api.user();
    const { receiver } = await endpointFor(token, { events: ['trustpoint.failed'] });
    const created = await api.certify(token);
    const certificate = await api.db
      .knex('certificates')
      .where({ user_id: id, cert_id: created.certID })
      .first<{ id: string }>('id');
    const [record] = await api.db
      .knex('anchor_records')
      .insert({
        network_id: 'unserved',
        kind: 'trustpoint',
        record_key: `0x${'ab'.repeat(32)}`,
        hash: 'cd'.repeat(32),
        trustpoint_type: 2,
      })
      .returning<{ id: number }[]>('id');
    await api.db.knex('trustpoints').insert({
      certificate_id: certificate.id,
      type: 2,
      hash: 'cd'.repeat(32),
      timestamp: Date.now() + 10_000,
      network_id: 'unserved',
      anchor_record_id: record?.id,
    });
    // Act
    await api.db
      .knex('anchor_records')
      .where({ id: record?.id })
      .update({ status: 'failed', error: 'a different hash is anchored under this key' });
    // Assert
    const delivered = await receiver.waitFor((w) => w.verified?.type === 'trustpoint.failed');
    expect(delivered.verified?.data).toMatchObject({
      certID: created.certID,
      trustpoint: { type: 'Signature', networkId: 'unserved', transactionHash: null },
      failure: 'a different hash is anchored under this key',
    });
  });

  it('when the owner redelivers an event, then it is sent again with the same webhook-id', async () => {
    const { token } = await api.user();
    const { receiver, endpoint } = await endpointFor(token);
    await api.certify(token);
    const first = await receiver.waitFor((w) => w.verified?.type === 'trustpoint.anchored');
    const eventId = String(first.headers['webhook-id']);

    const redelivery = await request(api.app)
      .post(`${ENDPOINTS}/${endpoint.id}/events/${eventId}/redeliver`)
      .set(auth(token));
    expect(redelivery.status).toBe(202);
    expect(redelivery.body.data).toEqual({ endpointId: endpoint.id, eventId, status: 'pending' });
    await expect
      .poll(() => receiver.received.filter((w) => w.headers['webhook-id'] === eventId).length)
      .toBe(2);
  });

  it('when another user asks for an endpoint, then it does not exist for them', async () => {
    const owner = await api.user();
    const other = await api.user();
    const { endpoint } = await endpointFor(owner.token);
    const base = `${ENDPOINTS}/${endpoint.id}`;
    expect((await request(api.app).get(ENDPOINTS).set(auth(other.token))).body.data).toEqual({
      endpoints: [],
    });
    expect((await request(api.app).get(base).set(auth(other.token))).status).toBe(404);
    expect((await request(api.app).get(`${base}/attempts`).set(auth(other.token))).status).toBe(
      404,
    );
    expect((await request(api.app).delete(base).set(auth(other.token))).status).toBe(404);
    const redeliver = `${base}/events/msg_${'0'.repeat(32)}/redeliver`;
    expect((await request(api.app).post(redeliver).set(auth(other.token))).status).toBe(404);
    // The owner still has it, and may delete it.
    expect((await request(api.app).get(base).set(auth(owner.token))).status).toBe(200);
    expect((await request(api.app).delete(base).set(auth(owner.token))).status).toBe(200);
    expect((await request(api.app).get(base).set(auth(owner.token))).status).toBe(404);
  });

  it('when the URL is at a private address, too long, or one too many, then 400 on body.url or body', async () => {
    const { token } = await api.user();
    for (const url of [
      'http://10.0.0.1/hook',
      'http://192.168.1.20/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/hook',
      'http://0.0.0.0/hook',
    ]) {
      const response = await request(api.app).post(ENDPOINTS).set(auth(token)).send({ url });
      expect(response.status, url).toBe(400);
      expect(response.body.errors[0]).toMatchObject({
        field: 'body.url',
        error: expect.stringMatching(/non-public address/) as unknown,
      });
    }
    const long = `https://example.org/${'a'.repeat(2048)}`;
    const tooLong = await request(api.app).post(ENDPOINTS).set(auth(token)).send({ url: long });
    expect(tooLong.status).toBe(400);
    const ftp = await request(api.app)
      .post(ENDPOINTS)
      .set(auth(token))
      .send({ url: 'ftp://example.org/' });
    expect(ftp.status).toBe(400);
    const unknownType = await request(api.app)
      .post(ENDPOINTS)
      .set(auth(token))
      .send({ url: 'https://example.org/h', events: ['certificate.created'] });
    expect(unknownType.status).toBe(400);

    for (let i = 0; i < 10; i += 1) {
      const created = await request(api.app)
        .post(ENDPOINTS)
        .set(auth(token))
        .send({ url: `http://127.0.0.1:9/hook${String(i)}` });
      expect(created.status).toBe(201);
    }
    const eleventh = await request(api.app)
      .post(ENDPOINTS)
      .set(auth(token))
      .send({ url: 'http://127.0.0.1:9/hook' });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body.errors[0].field).toBe('body');
  });

  it('when there is no token, then 401', async () => {
    expect((await request(api.app).get(ENDPOINTS)).status).toBe(401);
  });
});
