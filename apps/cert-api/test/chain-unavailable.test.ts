import { freePort } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';

describe('POST /certificates when the chain is down', () => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi('pglite', {
      anchorTimeoutMs: 1_500,
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
  });

  afterAll(async () => {
    await api.close();
  });

  it('when the trustpoint cannot be mined in time, then 503 and the request leaves nothing behind', async () => {
    const { id, token } = await api.user({ credits: 2 });
    const body = { name: 'Later', description: '', content: { later: true } };
    const started = Date.now();

    const response = await request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337')
      .set('Authorization', `Bearer ${token}`)
      .send(body);

    expect(response.status).toBe(503);
    expect(response.body.type).toBe('Service Unavailable Error');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await findCreditBalance(api.db.knex, id)).toBe(2);
    expect(
      await api.db
        .knex('certificates')
        .where({ user_id: id })
        .count<{ count: number }[]>('* as count'),
    ).toEqual([{ count: 0 }]);
    expect(
      await api.db
        .knex('anchor_records')
        .where({ status: 'queued' })
        .count<{ count: number }[]>('* as count'),
    ).toEqual([{ count: 0 }]);
  });
});
