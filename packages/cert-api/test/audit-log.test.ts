import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { listAuditEntries, updateUser, type AuditEntry } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { contentCertificateHash, type JsonObject } from '@trustpoint/domain';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const adminRequest = checkedRequest(ADMIN_API_BASE_PATH);

describe.each(testBackends())('audit log of the certificate API on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const auditOf = async (actorId: string): Promise<AuditEntry[]> =>
    (await listAuditEntries(api.db.knex, { actorId, offset: 0, limit: 100 })).entries;

  const create = (token: string, body: Record<string, unknown> = {}, requestId?: string) => {
    const call = request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337')
      .set('Authorization', `Bearer ${token}`);
    if (requestId !== undefined) void call.set('X-Request-Id', requestId);
    return call.send({ name: 'Doc', description: '', content: { n: Math.random() }, ...body });
  };

  it('when a certificate is created, then one entry names the issuer, the request and the certificate', async () => {
    // Arrange
    const owner = await api.user();

    // Act
    const response = await create(owner.token, {}, 'create-cert-1');

    // Assert
    expect(response.status).toBe(201);
    const { certID, data } = response.body.data as {
      certID: string;
      data: { hash: string; content: JsonObject };
    };
    expect(await auditOf(owner.id)).toEqual([
      expect.objectContaining({
        actorId: owner.id,
        requestId: 'create-cert-1',
        action: 'certificate.create',
        target: `certificate:${certID}`,
        changes: {
          type: 'content',
          networkId: '31337',
          hash: data.hash,
          hashVersion: 2,
          contentDigest: contentCertificateHash(data.content),
          qualified: false,
        },
      }),
    ]);
  });

  it('when certificates are created at once, then each has its entry, with its own request id', async () => {
    // Arrange
    const owner = await api.user();

    // Act
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => create(owner.token, {}, `batch-${String(index)}`)),
    );

    // Assert
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 201));
    const entries = await auditOf(owner.id);
    expect(entries.map((entry) => entry.requestId).sort()).toEqual(
      responses.map((_, index) => `batch-${String(index)}`).sort(),
    );
    const created = responses.map(
      (response) => `certificate:${(response.body.data as { certID: string }).certID}`,
    );
    expect(entries.map((entry) => entry.target).sort()).toEqual(created.sort());
  });

  it('when a creation is refused (repeat, no credit), then nothing is recorded', async () => {
    // Arrange
    const owner = await api.user({ credits: 1 });
    const content = { fixed: owner.id };
    await create(owner.token, { content, externalId: 'once' });
    const poor = await api.user({ credits: 0 });

    // Act
    const repeated = await create(owner.token, { content });
    const noCredit = await create(poor.token);

    // Assert
    expect(repeated.status).toBe(409);
    expect(noCredit.status).toBe(429);
    expect(await auditOf(owner.id)).toHaveLength(1);
    expect(await auditOf(poor.id)).toEqual([]);
  });

  it('when access changes, then the entry says what changed, the PIN only as set; a refused change records nothing', async () => {
    // Arrange
    const owner = await api.user();
    await api.certify(owner.token, { externalId: 'taken' });
    const created = await api.certify(owner.token);
    const patch = (body: object) =>
      request(api.app)
        .patch(`/cert/v2/certificates/certID/${created.certID}`)
        .set('Authorization', `Bearer ${owner.token}`)
        .send(body);

    // Act
    const changed = await patch({ public: true, certificatePin: '4242' });
    const refused = await patch({ externalId: 'taken' });

    // Assert
    expect(changed.status).toBe(200);
    expect(refused.status).toBe(409);
    const entries = (await auditOf(owner.id)).filter((e) => e.action === 'certificate.access');
    expect(entries).toEqual([
      expect.objectContaining({
        target: `certificate:${created.certID}`,
        changes: { public: true, pin: 'set' },
      }),
    ]);
    expect(JSON.stringify(entries)).not.toContain('4242');
  });

  it('when a certificate is revoked, then once, even when asked twice', async () => {
    // Arrange
    const owner = await api.user();
    const created = await api.certify(owner.token);
    const revoke = () =>
      request(api.app)
        .patch(`/cert/v2/certificates/certID/${created.certID}/revoke?networkId=31337`)
        .set('Authorization', `Bearer ${owner.token}`);

    // Act
    const first = await revoke();
    const second = await revoke();

    // Assert
    expect([first.status, second.status]).toEqual([200, 200]);
    const entries = (await auditOf(owner.id)).filter((e) => e.action === 'certificate.revoke');
    expect(entries).toEqual([
      expect.objectContaining({
        target: `certificate:${created.certID}`,
        changes: expect.objectContaining({ networkId: '31337' }) as unknown,
      }),
    ]);
  });

  it('when a qualified user signs a certificate, then the signature is recorded; an unqualified one records nothing', async () => {
    // Arrange
    const signer = await api.user({ qualified: true });
    const unqualified = await api.user();
    const signed = await api.certify(signer.token);
    const other = await api.certify(unqualified.token);
    const sign = (certId: string, token: string) =>
      request(api.app)
        .post(`/cert/v2/certificates/certID/${certId}/signature?networkId=31337`)
        .set('Authorization', `Bearer ${token}`);

    // Act
    const accepted = await sign(signed.certID, signer.token);
    const refused = await sign(other.certID, unqualified.token);

    // Assert
    expect(accepted.status).toBe(201);
    expect(refused.status).toBe(403);
    expect((await auditOf(signer.id)).map((e) => e.action)).toContain('certificate.sign');
    expect((await auditOf(unqualified.id)).map((e) => e.action)).not.toContain('certificate.sign');
  });

  it('when the admin API is asked on the same listener, then an admin reads the log and a user gets 403', async () => {
    // Arrange
    const admin = await api.user();
    await updateUser(api.db.knex, admin.id, { role: 'admin' });
    const user = await api.user();
    await api.certify(user.token);

    // Act
    const asAdmin = await adminRequest(api.app)
      .get(`/admin/v1/audit?actor=${user.id}`)
      .set('Authorization', `Bearer ${admin.token}`);
    const asUser = await adminRequest(api.app)
      .get('/admin/v1/audit')
      .set('Authorization', `Bearer ${user.token}`);
    const document = await adminRequest(api.app).get('/admin/v1/openapi.json');

    // Assert
    expect(asAdmin.status).toBe(200);
    expect(
      (asAdmin.body.data as { entries: { action: string }[] }).entries.map((e) => e.action),
    ).toEqual(['certificate.create']);
    expect(asUser.status).toBe(403);
    expect(asUser.body).toEqual({
      statusCode: 403,
      type: 'Forbidden Error',
      message: 'This operation requires an administrator',
    });
    expect(document.status).toBe(200);
  });
});
