import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { freePort } from '@trustpoint/contracts';
import { findCreditBalance, findPublishedFile } from '@trustpoint/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';
import { storedCertificate } from './support/stored-certificate.js';

describe('when the chain is down', () => {
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
    // Well under the 30 s a request waits for its record by default; the first checked request
    // of a file also builds the OpenAPI checker, which a loaded machine takes seconds over.
    expect(Date.now() - started).toBeLessThan(15_000);
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

  it('when a revocation cannot be mined in time, then 503, the revocation stands and a retry adds no second one', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 1 });
    const created = await storedCertificate(api.db.knex, id);
    const revokePath = `/cert/v2/certificates/certID/${created.certID}/revoke?networkId=31337`;

    // Act
    const first = await request(api.app).patch(revokePath).set('Authorization', `Bearer ${token}`);
    const retry = await request(api.app).patch(revokePath).set('Authorization', `Bearer ${token}`);

    // Assert
    expect([first.status, retry.status]).toEqual([503, 503]);
    const revocations = await api.db
      .knex('trustpoints')
      .join('anchor_records', 'anchor_records.id', 'trustpoints.anchor_record_id')
      .join('certificates', 'certificates.id', 'trustpoints.certificate_id')
      .where({ 'trustpoints.type': 1, 'certificates.cert_id': created.certID })
      .select('anchor_records.status', 'certificates.revoked_at');
    expect(revocations).toHaveLength(1);
    expect(revocations[0]?.status).toBe('queued');
    expect(revocations[0]?.revoked_at).toEqual(expect.any(Number));
  });

  it('when a published file certificate cannot be mined in time, then 503 and neither the certificate nor the publication is left', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 1 });
    const bytes = randomBytes(10_000);
    const fileHash = createHash('sha256').update(bytes).digest('hex');

    // Act
    const response = await request(api.app)
      .post('/cert/v2/certificates?type=file&networkId=31337&publish=true')
      .set('Authorization', `Bearer ${token}`)
      .attach('fileInput', bytes, { filename: 'late.bin', contentType: 'application/octet-stream' })
      .field('body', JSON.stringify({ name: 'Late', description: '' }));

    // Assert
    expect(response.status).toBe(503);
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
    expect(await findPublishedFile(api.db.knex, fileHash)).toBeUndefined();
    expect(await readdir(api.files.dir, { recursive: true })).not.toContainEqual(
      expect.stringContaining(fileHash),
    );
    const files = await request(api.app).get(`/cert/v2/files/${fileHash}`);
    expect(files.status).toBe(404);
  });
});
