import { findCreditBalance, listAuditEntries } from '@trustpoint/db';
import { contentCertificateHash, readDisclosableCertificate } from '@trustpoint/domain';
import { testBackends } from '@trustpoint/test-database';
import { anchoredVersion1Certificate } from '@trustpoint/test-kit/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const BASE = '/cert/v2/certificates';

describe.each(testBackends())('POST /certificates/{type}/{id}/reanchor on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const reanchor = (path: string, token?: string) => {
    const call = request(api.app).post(`${BASE}/${path}/reanchor`);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };
  const read = (certId: string, token: string) =>
    request(api.app).get(`${BASE}/certID/${certId}`).set('Authorization', `Bearer ${token}`);

  it('when the issuer re-anchors a version 1 certificate, then it gets a version 2 hash over every shown field, one new anchored Evidence, for one credit, and its unsalted digest still finds it', async () => {
    // Arrange
    const owner = await api.user({ credits: 3 });
    const content = { student: { name: 'Ada', dateOfBirth: '1815-12-10' }, grade: 'A' };
    const certId = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, content);
    const before = await read(certId, owner.token);

    // Act
    const response = await reanchor(`certID/${certId}`, owner.token);

    // Assert
    expect(before.body.data.data.hashVersion).toBeUndefined();
    expect(response.status).toBe(201);
    expect(response.body.message).toBe('Certificate re-anchored successfully');
    const certificate = response.body.data;
    expect(certificate.data).toMatchObject({
      hashVersion: 2,
      content,
      issuedOn: before.body.data.data.issuedOn,
    });
    expect(readDisclosableCertificate(certificate).hash).toBe(certificate.data.hash);
    expect(certificate.metadata).toEqual([
      expect.objectContaining({
        type: 'Evidence',
        status: 'anchored',
        trustPointHash: certificate.data.hash,
      }),
    ]);
    expect(certificate.metadata[0].timestamp).toBeGreaterThan(
      before.body.data.metadata[0].timestamp,
    );
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    const byDigest = await request(api.app)
      .get(`${BASE}/hash/${contentCertificateHash(content)}`)
      .set('Authorization', `Bearer ${owner.token}`);
    expect(byDigest.body.data).toEqual(certificate);
    const verification = await request(api.app)
      .get(`/cert/v2/trustpoints/certID/${certId}`)
      .set('Authorization', `Bearer ${owner.token}`);
    expect(verification.body.data.verified).toBe(true);
    const audit = await listAuditEntries(api.db.knex, { actorId: owner.id, limit: 10, offset: 0 });
    expect(audit.entries).toEqual([
      expect.objectContaining({
        action: 'certificate.reanchor',
        target: `certificate:${certId}`,
        changes: expect.objectContaining({
          hashVersion: 2,
          hash: certificate.data.hash,
          previousHash: contentCertificateHash(content),
        }) as unknown,
      }),
    ]);
  });

  it('when a version 1 certificate of more fields than creation now takes is re-anchored, then 201: its holders already have it', async () => {
    // Arrange: 60,000 numbers, a disclosure each under version 2 (creation refuses that now).
    const owner = await api.user({ credits: 1 });
    const content = { readings: Array.from({ length: 60_000 }, (_, index) => index % 10) };
    const certId = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, content);

    // Act
    const response = await reanchor(`certID/${certId}`, owner.token);

    // Assert
    expect(response.status).toBe(201);
    expect(response.body.data.data).toMatchObject({ hashVersion: 2, content });
  });

  it('when a version 2 certificate is re-anchored, then 200 with it as it is and no credit spent', async () => {
    // Arrange
    const owner = await api.user({ credits: 2 });
    const created = await api.certify(owner.token);

    // Act
    const response = await reanchor(`certID/${created.certID}`, owner.token);

    // Assert
    expect(response.status).toBe(200);
    expect(response.body.message).toBe('Certificate already under hash version 2');
    expect(response.body.data.data.hash).toBe(created.data.hash);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(1);
  });

  it('when someone else, or nobody, asks to re-anchor it, then 404 or 401 and nothing changes', async () => {
    // Arrange
    const owner = await api.user();
    const stranger = await api.user();
    const certId = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, { a: 1 });

    // Act
    const byStranger = await reanchor(`certID/${certId}`, stranger.token);
    const anonymous = await reanchor(`certID/${certId}`);

    // Assert
    expect(byStranger.status).toBe(404);
    expect(anonymous.status).toBe(401);
    expect((await read(certId, owner.token)).body.data.data.hashVersion).toBeUndefined();
  });

  it('when the issuer has no credit left, then 429 and the certificate stays under version 1', async () => {
    // Arrange
    const owner = await api.user({ credits: 0 });
    const certId = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, { b: 2 });

    // Act
    const response = await reanchor(`certID/${certId}`, owner.token);

    // Assert
    expect(response.status).toBe(429);
    expect(response.body.type).toBe('Out of Credits Error');
    expect((await read(certId, owner.token)).body.data.data.hashVersion).toBeUndefined();
  });
});
