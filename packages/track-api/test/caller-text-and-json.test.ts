import { findCreditBalance } from '@trustpoint/db';
import { canonicalJson, decodeGetEvidenceResponse, getEvidenceRequest } from '@trustpoint/domain';
import { testBackends } from '@trustpoint/test-database';
import { doubleHashOf } from '@trustpoint/test-kit/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

// Valid JSON that a client may send; each is refused (U+0000, lone surrogates: not storable or
// hashable as sent) or kept exactly (`__proto__`), never a 500.
describe.each(testBackends())('Caller text and JSON in assets and evidences on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  /** Sends JSON text as is: a JS object literal could not even hold a `__proto__` member. */
  const postText = (token: string, path: string, text: string) =>
    request(api.app)
      .post(`${BASE}${path}`)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(text);

  const assetCount = async (userId: string) =>
    Number(
      (
        await api.db
          .knex('assets')
          .where({ user_id: userId })
          .count<{ count: number }[]>('* as count')
      )[0]?.count,
    );
  const evidenceCount = async (userDid: string) =>
    Number(
      (
        await api.db
          .knex('evidences')
          .where({ user_owner: userDid })
          .count<{ count: number }[]>('* as count')
      )[0]?.count,
    );

  it.each([
    ['assetId', '{"assetId":"p\\u0000","data":{},"networkId":31337}', 'body.assetId'],
    [
      'a data value',
      '{"assetId":"p","data":{"a":{"b":"\\u0000"}},"networkId":31337}',
      'body.data.a.b',
    ],
    [
      'a data member name',
      '{"assetId":"p","data":{"\\u0000":1},"networkId":31337}',
      'body.data.\u0000',
    ],
    [
      'a lone surrogate in data',
      '{"assetId":"p","data":{"a":["\\ud800"]},"networkId":31337}',
      'body.data.a.0',
    ],
  ])(
    'when an asset holds %s that cannot be stored, then 400 names it and nothing is spent',
    async (_case, text, field) => {
      const owner = await api.user({ credits: 3 });

      const response = await postText(owner.token, '/assets', text);

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
      expect(response.body.errors).toContainEqual({ field, error: expect.any(String) });
      expect(await findCreditBalance(api.db.knex, owner.id)).toBe(3);
      expect(await assetCount(owner.id)).toBe(0);
    },
  );

  it.each([
    ['a metadata value', '{"metadata":{"step":"a\\u0000"}}', 'body.metadata.step'],
    ['a metadata member name', '{"metadata":{"st\\u0000ep":1}}', 'body.metadata.st\u0000ep'],
    ['a lone surrogate in metadata', '{"metadata":{"step":"\\udfff"}}', 'body.metadata.step'],
  ])(
    'when an evidence holds %s that cannot be stored, then 400 names it and nothing is spent',
    async (_case, text, field) => {
      const owner = await api.user({ credits: 3 });
      const asset = await api.createAsset(owner.token);
      const evidencesBefore = await evidenceCount(owner.did);

      const response = await postText(owner.token, `/assets/${asset.trackID}/transactions`, text);

      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual({ field, error: expect.any(String) });
      expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
      expect(await evidenceCount(owner.did)).toBe(evidencesBefore);
      expect(evidencesBefore).toBe(1);
    },
  );

  it.each([
    ['GET', `${BASE}/evidences/%E0%A4%A`],
    ['GET', `${BASE}/evidences/%00`],
    ['GET', `${BASE}/assets/%E0%A4%A`],
    ['GET', `${BASE}/assets/did%3Atrustpoint%3Atrackid%3A%00`],
    ['GET', `${BASE}/assets?fields=%00`],
    ['PUT', `${BASE}/assets/x/shares/%E0%A4%A`],
    ['DELETE', `${BASE}/assets/x/shares/did%3Auser%3A%00`],
  ])(
    'when %s %s cannot be decoded into storable text, then 400 in the error body',
    async (method, target) => {
      const owner = await api.user();

      const response = await request(api.app)
        [method.toLowerCase() as 'get'](target)
        .set('Authorization', `Bearer ${owner.token}`);

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
      expect(response.body.errors?.[0]?.field).toMatch(/^(path|query\.)/);
    },
  );

  it('when data and metadata have __proto__ members, then they are kept, and assetHash and the evidence hash cover them as sent', async () => {
    const owner = await api.user();
    const data = '{"__proto__":{"owner":"x"},"constructor":1}';
    const metadata = '{"__proto__":[1,2],"step":"shipped"}';

    const created = await postText(
      owner.token,
      '/assets',
      `{"assetId":"proto-1","data":${data},"networkId":31337}`,
    );
    const trackID = String(created.body?.data?.trackID);
    const added = await postText(
      owner.token,
      `/assets/${trackID}/transactions`,
      `{"metadata":${metadata}}`,
    );
    const read = await request(api.app)
      .get(`${BASE}/assets/${trackID}`)
      .set('Authorization', `Bearer ${owner.token}`);

    expect(created.status).toBe(201);
    expect(added.status).toBe(201);
    expect(canonicalJson(created.body.data.data)).toBe(data);
    expect(canonicalJson(read.body.data.data)).toBe(data);
    // Version 2, written out by hand: the domain, then the canonical payload as sent.
    expect(created.body.data.assetHash).toBe(
      doubleHashOf(
        `Trustpoint asset hash v2\n{"assetId":"proto-1","data":${data},"hashVersion":2,"owner":${JSON.stringify(owner.did)},"trackID":${JSON.stringify(trackID)}}`,
      ),
    );
    const evidence = added.body.data as { timestamp: number; userOwner: string; hash: string };
    expect(canonicalJson(added.body.data.metadata)).toBe(metadata);
    const expectedHash = doubleHashOf(
      `{"metadata":${metadata},"timestamp":${String(evidence.timestamp)},"userOwner":${JSON.stringify(evidence.userOwner)}}`,
    );
    expect(evidence.hash).toBe(expectedHash);
    const stored = (read.body.data.transactions as { hash: string; metadata: unknown }[]).find(
      (transaction) => transaction.hash === expectedHash,
    );
    expect(canonicalJson(stored?.metadata)).toBe(metadata);
    const rpc = await fetch(api.chain.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        getEvidenceRequest({
          smartContract: api.network.evidenceRepository,
          assetHash: String(created.body.data.assetHash),
          timestampSeconds: evidence.timestamp,
        }),
      ),
    });
    expect(decodeGetEvidenceResponse(await rpc.json())).toEqual({
      found: true,
      hash: expectedHash,
    });
  });
});
