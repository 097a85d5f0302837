import { randomUUID } from 'node:crypto';
import { freePort } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const CREATE = '/cert/v2/certificates?type=content&networkId=31337';

// A synchronous creation whose chain never mines withdraws its certificate after the wait (503),
// unless a retry took its Idempotency-Key over meanwhile and may have answered from it.
describe.each(testBackends())('withdrawal of an idempotent creation on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend, {
      // Long enough for the retry below to take the key over before the first wait ends, on a
      // loaded machine too.
      anchorTimeoutMs: 6_000,
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
  });

  afterAll(async () => {
    await api.close();
  });

  const rowOf = async (userId: string, key: string) =>
    api.db
      .knex('idempotency_keys')
      .where({ user_id: userId, key })
      .first<{ state: string; resource: string | null } | undefined>('state', 'resource');

  /** Polls until the first request has committed its certificate under the key. */
  const untilCommitted = async (userId: string, key: string): Promise<string> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const row = await rowOf(userId, key);
      if (row?.state === 'committed' && row.resource !== null) return row.resource;
      if (Date.now() > deadline) throw new Error('the first request never committed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('when a retry takes the key over during the wait and answers from the certificate, then the first request does not withdraw it: both answer 202 with the same certificate, one credit spent', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 3 });
    const key = randomUUID();
    const body = { name: 'Raced', description: '', content: { n: randomUUID() } };
    const send = () =>
      request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', key)
        .send(body);
    const first = send().then((response) => response);
    const certId = await untilCommitted(id, key);

    // Act: the first request's lease runs out (as if its process stalled), a retry takes the key
    // over and answers from what was committed, then the first request's wait ends.
    await api.db
      .knex('idempotency_keys')
      .where({ user_id: id, key })
      .update({ lease_expires_at: 0 });
    const retry = await send();
    const original = await first;

    // Assert
    expect(retry.status).toBe(202);
    expect(retry.body.data.certID).toBe(certId);
    expect(original.status).toBe(202);
    expect(original.body.data.certID).toBe(certId);
    const stored = await api.db.knex('certificates').where({ cert_id: certId }).first('id');
    expect(stored).toBeDefined();
    expect(await findCreditBalance(api.db.knex, id)).toBe(2);
  });

  it('when the first request still holds its key at the end of the wait, then it withdraws the certificate (503) and a retry runs again', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 3 });
    const key = randomUUID();
    const body = { name: 'Withdrawn', description: '', content: { n: randomUUID() } };
    const send = () =>
      request(api.app)
        .post(CREATE)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', key)
        .send(body);

    // Act
    const first = await send();
    const retry = await send();

    // Assert: the chain is still down, so the retry is withdrawn too; nothing is left.
    expect(first.status).toBe(503);
    expect(retry.status).toBe(503);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await findCreditBalance(api.db.knex, id)).toBe(3);
    expect(
      await api.db
        .knex('certificates')
        .where({ user_id: id })
        .count<{ count: number }[]>('* as count'),
    ).toEqual([{ count: 0 }]);
  });
});
