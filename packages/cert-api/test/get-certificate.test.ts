import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

describe.each(testBackends())('GET /certificates/{type}/{id} on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const get = (path: string, token?: string) => {
    const call = request(api.app).get(`/cert/v2/certificates/${path}`);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  it('when the issuer reads by certID, externalId or hash, then the same certificate comes back', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { externalId: 'doc-1' });

    const byCertId = await get(`certID/${created.certID}`, owner.token);
    const byExternalId = await get('externalId/doc-1', owner.token);
    const byHash = await get(`hash/${created.data.hash}`, owner.token);

    expect(byCertId.status).toBe(200);
    expect(byCertId.body.data).toEqual(created);
    expect(byExternalId.body.data).toEqual(created);
    expect(byHash.body.data).toEqual(created);
  });

  it('when another user or nobody reads a private certificate, then it is not found', async () => {
    const owner = await api.user();
    const other = await api.user();
    const created = await api.certify(owner.token, {});

    expect((await get(`certID/${created.certID}`, other.token)).status).toBe(404);
    expect((await get(`certID/${created.certID}`)).status).toBe(404);
    expect((await get(`hash/${created.data.hash}`, other.token)).status).toBe(404);
  });

  it('when anyone reads a public certificate by certID, then it is returned without a token', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true });

    const response = await get(`certID/${created.certID}`);

    expect(response.status).toBe(200);
    expect(response.body.data.certID).toBe(created.certID);
  });

  it('when a public certificate has a PIN, then readers need it; the PIN is only ever shown encrypted', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true, certificatePin: '2468' });

    const without = await get(`certID/${created.certID}`);
    const wrong = await get(`certID/${created.certID}?pin=1111`);
    const right = await get(`certID/${created.certID}?pin=2468`);

    expect(without.status).toBe(403);
    expect(without.body.message).toBe('This certificate requires a PIN, please provide it');
    expect(wrong.status).toBe(403);
    expect(right.status).toBe(200);
    expect(created.access.certificatePin).toBeDefined();
    expect(created.access.certificatePin).not.toContain('2468');
  });

  it('when the lookup type is unknown or a private lookup has no token, then 400 and 401', async () => {
    const owner = await api.user();
    await api.certify(owner.token, { externalId: 'x-1' });

    const unknown = await get('serial/123', owner.token);
    const anonymous = await get('externalId/x-1');

    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('path.type');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toBe('Token is not provided');
  });
});
