import { findCreditBalance } from '@trustpoint/db';
import {
  canonicalJson,
  decodeGetTrustPointResponse,
  getTrustPointRequest,
  readDisclosableCertificate,
} from '@trustpoint/domain';
import { testBackends } from '@trustpoint/test-database';
import { doubleHashOf } from '@trustpoint/test-kit/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';
import { uploadMultipart } from './support/multipart-upload.js';

const CREATE = '/cert/v2/certificates';

// Valid JSON that a client may send; each is refused (U+0000, lone surrogates: not storable or
// hashable as sent) or kept exactly (`__proto__`), never a 500.
describe.each(testBackends())('Caller text and JSON in certificates on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  /** Sends JSON text as is: a JS object literal could not even hold a `__proto__` member. */
  const postText = (token: string, query: string, text: string) =>
    request(api.app)
      .post(`${CREATE}?${query}`)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(text);

  const certificateCount = async (userId: string) =>
    Number(
      (
        await api.db
          .knex('certificates')
          .where({ user_id: userId })
          .count<{ count: number }[]>('* as count')
      )[0]?.count,
    );

  it.each([
    ['name', '{"name":"a\\u0000b","description":"","content":{"k":1}}', 'body.name'],
    ['description', '{"name":"a","description":"\\u0000","content":{"k":1}}', 'body.description'],
    [
      'a content value',
      '{"name":"a","description":"","content":{"k":["x\\u0000"]}}',
      'body.content.k.0',
    ],
    [
      'a content member name',
      '{"name":"a","description":"","content":{"k\\u0000":1}}',
      'body.content.k\u0000',
    ],
    [
      'externalId',
      '{"name":"a","description":"","content":{},"externalId":"\\u0000"}',
      'body.externalId',
    ],
    [
      'certificatePin',
      '{"name":"a","description":"","content":{},"certificatePin":"1\\u0000"}',
      'body.certificatePin',
    ],
    [
      'a lone surrogate in content',
      '{"name":"a","description":"","content":{"k":"\\ud800"}}',
      'body.content.k',
    ],
    [
      'a lone surrogate in a member name',
      '{"name":"a","description":"","content":{"\\udc00":1}}',
      'body.content.\udc00',
    ],
    [
      'a lone surrogate in the name',
      '{"name":"\\udbff","description":"","content":{}}',
      'body.name',
    ],
  ])(
    'when %s holds an unstorable character, then 400 names the field and nothing is spent',
    async (_case, text, field) => {
      const { id, token } = await api.user({ credits: 3 });

      const response = await postText(token, 'type=content&networkId=31337', text);

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
      expect(response.body.errors).toContainEqual({ field, error: expect.any(String) });
      expect(await findCreditBalance(api.db.knex, id)).toBe(3);
      expect(await certificateCount(id)).toBe(0);
    },
  );

  it.each([
    [
      'asset',
      'type=asset&networkId=31337',
      '{"name":"a","description":"","assetId":"p\\u0000"}',
      'body.assetId',
    ],
    [
      'asset',
      'type=asset&networkId=31337',
      '{"name":"a","description":"","assetId":"p","from":"\\u0000"}',
      'body.from',
    ],
    [
      'asset',
      'type=asset&networkId=31337',
      '{"name":"a","description":"","assetId":"p","content":{"a":"\\u0000"}}',
      'body.content.a',
    ],
    [
      'url',
      'type=url&networkId=31337',
      '{"name":"a","description":"","url":"https://example.com/\\u0000"}',
      'body.url',
    ],
  ])(
    'when a %s certificate holds U+0000, then 400 names the field',
    async (_kind, query, text, field) => {
      const { id, token } = await api.user({ credits: 3 });

      const response = await postText(token, query, text);

      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual({ field, error: expect.any(String) });
      expect(await certificateCount(id)).toBe(0);
    },
  );

  it('when the multipart body part or the file name holds U+0000, then 400 names it', async () => {
    const { id, token } = await api.user({ credits: 3 });

    const upload = (body: string, filename: string) =>
      uploadMultipart(api.app, {
        token,
        query: 'type=file&networkId=31337',
        parts: [
          { name: 'body', data: Buffer.from(body) },
          { name: 'fileInput', filename, data: Buffer.from('file bytes') },
        ],
      });

    const badBody = await upload(
      '{"name":"a","description":"","content":{"x":"\\u0000"}}',
      'a.txt',
    );
    // RFC 5987 form, which busboy decodes: a raw NUL byte could not travel in a header line.
    const badName = await upload(
      '{"name":"a","description":""}',
      "x\"; filename*=utf-8''a%00b.txt",
    );

    expect(badBody.status).toBe(400);
    expect(badBody.body.errors).toContainEqual({
      field: 'body.content.x',
      error: expect.any(String),
    });
    expect(badName.status).toBe(400);
    expect(badName.body.errors).toContainEqual({ field: 'fileInput', error: expect.any(String) });
    expect(await certificateCount(id)).toBe(0);
  });

  it('when a PATCH sets an externalId holding U+0000, then 400 and the access is unchanged', async () => {
    const { token } = await api.user();
    const { certID } = await api.certify(token, { externalId: 'before' });

    const response = await request(api.app)
      .patch(`${CREATE}/certID/${encodeURIComponent(certID)}`)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{"externalId":"x\\u0000"}');
    const after = await request(api.app)
      .get(`${CREATE}/certID/${encodeURIComponent(certID)}`)
      .set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({
      field: 'body.externalId',
      error: expect.any(String),
    });
    expect(after.body.data.access.externalId).toBe('before');
  });

  it.each([
    ['GET', `${CREATE}/certID/%00`],
    ['GET', `${CREATE}/externalId/a%00b`],
    ['GET', `${CREATE}/certID/%E0%A4%A`],
    ['GET', `${CREATE}/hash/%FF`],
    ['GET', `${CREATE}?fields=%00`],
    ['GET', `/cert/v2/trustpoints/certID/%E0%A4%A`],
    ['GET', `/cert/v2/files/%E0%A4%A`],
    ['PATCH', `${CREATE}/certID/%00`],
    ['DELETE', `${CREATE}/certID/%E0%A4%A`],
    ['GET', `/cert/v2/nothing/%E0%A4%A`],
  ])(
    'when %s %s cannot be decoded into storable text, then 400 in the error body',
    async (method, target) => {
      const { token } = await api.user();

      const response = await request(api.app)
        [method.toLowerCase() as 'get'](target)
        .set('Authorization', `Bearer ${token}`);

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
      expect(response.body.errors?.[0]?.field).toMatch(/^(path|query\.)/);
    },
  );

  it.each([
    ['GET', `${CREATE}/certID/a%00b`, 'path.id'],
    ['PATCH', `${CREATE}/externalId/%00`, 'path.id'],
    ['GET', `/cert/v2/trustpoints/certID/a%00b`, 'path.id'],
    ['GET', `${CREATE}/bogus/x`, 'path.type'],
    ['GET', `${CREATE}/bogus/x/pdf`, 'path.type'],
    ['GET', `/cert/v2/trustpoints/bogus/x`, 'path.type'],
  ])(
    'when %s %s has a wrong path parameter, then the 400 names it %s',
    async (method, target, field) => {
      // Arrange
      const { token } = await api.user();

      // Act
      const response = await request(api.app)
        [method.toLowerCase() as 'get'](target)
        .set('Authorization', `Bearer ${token}`)
        .send(method === 'PATCH' ? { public: true } : undefined);

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        statusCode: 400,
        type: 'Validation Error',
        errors: [{ field, error: expect.any(String) }],
      });
    },
  );

  it('when content has a __proto__ member, then it is certified, stored and returned as sent, and its hash is doubleHash(JCS(content as sent))', async () => {
    const { token } = await api.user();
    // Keys in JCS order already, so this text is its own canonical form.
    const content =
      '{"__proto__":{"admin":true},"constructor":{"prototype":1},"list":[{"__proto__":null}],"z":"\u00e9"}';

    const response = await postText(
      token,
      'type=content&networkId=31337',
      `{"name":"proto","description":"","content":${content}}`,
    );
    const certID = String(response.body?.data?.certID);
    const read = await request(api.app)
      .get(`${CREATE}/certID/${encodeURIComponent(certID)}`)
      .set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(201);
    // The same JSON value (the database keeps members, not their order; JCS sorts them anyway).
    expect(canonicalJson(response.body.data.data.content)).toBe(content);
    expect(canonicalJson(read.body.data.data.content)).toBe(content);
    // Version 2 covers it as sent too: the disclosures reveal exactly this content.
    const reading = readDisclosableCertificate(response.body.data);
    expect(reading.hash).toBe(response.body.data.data.hash);
    expect(canonicalJson(reading.content)).toBe(content);
    // The unsalted digest of the content as sent finds it.
    const byDigest = await request(api.app)
      .get(`${CREATE}/hash/${doubleHashOf(content)}`)
      .set('Authorization', `Bearer ${token}`);
    expect(byDigest.body.data.certID).toBe(certID);
    const [trustpoint] = response.body.data.metadata as {
      smartContract: string;
      timestamp: number;
    }[];
    const rpc = await fetch(api.chain.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        getTrustPointRequest({
          smartContract: trustpoint?.smartContract ?? '',
          certId: certID,
          timestampMs: trustpoint?.timestamp ?? 0,
        }),
      ),
    });
    expect(decodeGetTrustPointResponse(await rpc.json())).toMatchObject({
      found: true,
      hash: response.body.data.data.hash,
    });
  });

  it('when an asset certificate has a __proto__ member in content, then it is kept and hashed as sent', async () => {
    const { token } = await api.user();

    const response = await postText(
      token,
      'type=asset&networkId=31337',
      '{"name":"a","description":"","assetId":"p-1","content":{"__proto__":{"x":1}}}',
    );

    expect(response.status).toBe(201);
    expect(canonicalJson(response.body.data.data.content)).toBe(
      '{"assetId":"p-1","content":{"__proto__":{"x":1}}}',
    );
    expect(readDisclosableCertificate(response.body.data).hash).toBe(response.body.data.data.hash);
    const byDigest = await request(api.app)
      .get(`${CREATE}/hash/${doubleHashOf('{"assetId":"p-1","content":{"__proto__":{"x":1}}}')}`)
      .set('Authorization', `Bearer ${token}`);
    expect(byDigest.body.data.certID).toBe(response.body.data.certID);
  });
});
