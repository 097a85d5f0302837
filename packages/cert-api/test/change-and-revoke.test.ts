import { testBackends } from '@trustpoint/test-database';
import {
  decodeGetTrustPointResponse,
  getTrustPointRequest,
  revocationTrustPointHash,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

describe.each(testBackends())('PATCH /certificates/{type}/{id} and /revoke on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const patch = (path: string, token: string, body?: unknown) =>
    request(api.app)
      .patch(`/cert/v2/certificates/${path}`)
      .set('Authorization', `Bearer ${token}`)
      .send(body as object);

  it('when the issuer changes access, then public, PIN and externalId change and null removes them', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { externalId: 'old-id' });

    const changed = await patch(`certID/${created.certID}`, owner.token, {
      public: true,
      certificatePin: '9999',
      externalId: 'new-id',
    });
    const cleared = await patch('externalId/new-id', owner.token, {
      certificatePin: null,
      externalId: null,
    });

    expect(changed.status).toBe(200);
    expect(changed.body.data.access.public).toBe(true);
    expect(changed.body.data.access.externalId).toBe('new-id');
    expect(changed.body.data.access.certificatePin).toMatch(/^v2\./);
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.access).toEqual({ public: true });
    const anyone = await request(api.app).get(`/cert/v2/certificates/certID/${created.certID}`);
    expect(anyone.status).toBe(200);
  });

  it('when another user or a bad body patches, then 404 and 400 and nothing changes', async () => {
    const owner = await api.user();
    const other = await api.user();
    const created = await api.certify(owner.token);

    const foreign = await patch(`certID/${created.certID}`, other.token, { public: true });
    const empty = await patch(`certID/${created.certID}`, owner.token, {});
    const unknownField = await patch(`certID/${created.certID}`, owner.token, { owner: 'me' });

    expect(foreign.status).toBe(404);
    expect(empty.status).toBe(400);
    expect(unknownField.status).toBe(400);
    const read = await request(api.app)
      .get(`/cert/v2/certificates/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);
    expect(read.body.data.access.public).toBe(false);
  });

  it('when an externalId is taken by another certificate of the issuer, then 409', async () => {
    const owner = await api.user();
    await api.certify(owner.token, { externalId: 'taken' });
    const second = await api.certify(owner.token);

    const response = await patch(`certID/${second.certID}`, owner.token, { externalId: 'taken' });

    expect(response.status).toBe(409);
    expect(response.body.message).toBe(
      'The provided externalId is already registered, please try again with a different one',
    );
  });

  it('when the issuer revokes, then a Revocation trustpoint is anchored and verifiable with one eth_call', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token);

    const response = await patch(`hash/${created.data.hash}/revoke?networkId=31337`, owner.token);

    expect(response.status).toBe(200);
    const metadata = response.body.data.metadata as {
      type: string;
      trustPointHash: string;
      timestamp: number;
      smartContract: string;
    }[];
    expect(metadata.map((item) => item.type)).toEqual(['Evidence', 'Revocation']);
    const revocation = metadata[1];
    if (!revocation) throw new Error('two trustpoints');
    expect(revocation.trustPointHash).toBe(revocationTrustPointHash(created.certID));
    expect(revocation.timestamp).toBeGreaterThan(metadata[0]?.timestamp ?? Infinity);
    const rpc = await fetch(api.chain.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        getTrustPointRequest({
          smartContract: revocation.smartContract,
          certId: created.certID,
          timestampMs: revocation.timestamp,
        }),
      ),
    });
    expect(decodeGetTrustPointResponse(await rpc.json())).toEqual({
      found: true,
      hash: revocation.trustPointHash,
      type: 'Revocation',
    });
  });

  it('when a certificate is revoked twice, then the second call returns it unchanged', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token);
    const first = await patch(`certID/${created.certID}/revoke?networkId=31337`, owner.token);

    const second = await patch(`certID/${created.certID}/revoke?networkId=31337`, owner.token);

    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
  });

  it('when revoking without networkId or on a network outside the plan, then 400 and 403', async () => {
    const owner = await api.user({ networks: [] });
    const missing = await patch('certID/did:trustpoint:certid:whatever/revoke', owner.token);
    const other = await api.user();
    const created = await api.certify(other.token);
    const restricted = await api.user({ networks: [] });

    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('query.networkId');
    // The owner's plan decides: a user without the network cannot revoke on it.
    await api.db
      .knex('users')
      .where({ id: other.id })
      .update({ plan_id: `plan-${restricted.id}` });
    const forbidden = await patch(`certID/${created.certID}/revoke?networkId=31337`, other.token);
    expect(forbidden.status).toBe(403);
  });
});
