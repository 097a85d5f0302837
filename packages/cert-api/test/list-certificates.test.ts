import { testBackends } from '@trustpoint/test-database';
import { certificateListSchema } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

describe.each(testBackends())('GET /certificates on %s', (backend) => {
  let api: CertApiFixture;
  let owner: { id: string; token: string };
  const names: string[] = [];

  beforeAll(async () => {
    api = await startCertApi(backend);
    owner = await api.user();
    // Five certificates, one of them public and one an asset, created one after the other.
    for (let i = 0; i < 5; i++) {
      const type = i === 4 ? 'asset' : 'content';
      const body =
        type === 'asset'
          ? { name: `cert-${String(i)}`, description: '', assetId: `asset-${String(i)}` }
          : { name: `cert-${String(i)}`, description: '', content: { i }, public: i === 1 };
      const response = await request(api.app)
        .post(`/cert/v2/certificates?type=${type}&networkId=31337`)
        .set('Authorization', `Bearer ${owner.token}`)
        .send(body);
      expect(response.status).toBe(201);
      names.push(`cert-${String(i)}`);
    }
  });

  afterAll(async () => {
    await api.close();
  });

  const list = (query: string, token = owner.token) =>
    request(api.app).get(`/cert/v2/certificates${query}`).set('Authorization', `Bearer ${token}`);

  it('when listing, then the newest come first with pagination and the spec message', async () => {
    const response = await list('?limit=2');

    expect(response.status).toBe(200);
    expect(response.body.message).toBe('Retrieved 2 certificate(s) out of a total of 5');
    const page = certificateListSchema.parse(response.body.data);
    expect(page.certificates.map((c) => c.data.name)).toEqual(['cert-4', 'cert-3']);
    expect(page.pagination).toEqual({ offset: 0, limit: 2, total: 5, order: 'desc' });
  });

  it('when paging ascending with an offset, then the window moves over the oldest first', async () => {
    const response = await list('?order=asc&offset=1&limit=3');

    expect(
      response.body.data.certificates.map((c: { data: { name: string } }) => c.data.name),
    ).toEqual(['cert-1', 'cert-2', 'cert-3']);
  });

  it('when filtering by access, type and time, then only matching certificates count', async () => {
    const publicOnes = await list('?access=public');
    const assets = await list('?type=asset');
    const future = await list(`?from=${String(Date.now() + 60_000)}`);

    expect(publicOnes.body.data.pagination.total).toBe(1);
    expect(publicOnes.body.data.certificates[0].data.name).toBe('cert-1');
    expect(
      assets.body.data.certificates.map((c: { data: { type: string } }) => c.data.type),
    ).toEqual(['asset']);
    expect(future.body.data.pagination.total).toBe(0);
  });

  it('when fields are named, then only those are returned', async () => {
    const response = await list('?limit=1&fields=certID,data.name');

    expect(Object.keys(response.body.data.certificates[0]).sort()).toEqual(['certID', 'data']);
    expect(response.body.data.certificates[0].data).toEqual({ name: 'cert-4' });
  });

  it('when fields name members a certificate lacks, then they are left out, as the document says', async () => {
    // Act: no certificate here expires or has an externalId; the checked request compares the
    // items with the document's CertificateFields.
    const response = await list('?limit=2&fields=data.expires,access.externalId,access.public');

    // Assert
    expect(response.status).toBe(200);
    expect(response.body.data.certificates).toEqual([
      { access: { public: false } },
      { access: { public: false } },
    ]);
  });

  it('when another user lists, then none of these certificates appear', async () => {
    const other = await api.user();

    const response = await list('', other.token);

    expect(response.body.data.pagination.total).toBe(0);
  });

  it('when the query is invalid, then 400 names each problem', async () => {
    const response = await list('?limit=0&order=sideways&fields=secret');

    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'query.fields',
      'query.limit',
      'query.order',
    ]);
  });
});
