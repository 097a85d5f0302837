import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

interface CreatedKey {
  data: { id: string; key: string };
}

describe.each(testBackends())('API keys and the token endpoint of /cert/v2 on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const certify = (token: string) =>
    request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'n', description: '', content: { at: Math.random() } });

  it('when a user certifies with an API key and with a token exchanged for it, then both work until the key is revoked', async () => {
    // Arrange
    const owner = await api.user();
    const created = await request(api.app)
      .post('/cert/v2/api-keys')
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ name: 'nightly import' });
    const { id, key } = (created.body as CreatedKey).data;
    const exchanged = await request(api.app)
      .post('/cert/v2/oauth/token')
      .auth(id, key)
      .type('form')
      .send({ grant_type: 'client_credentials' });
    const accessToken = (exchanged.body as { access_token: string }).access_token;

    // Act
    const withKey = await certify(key);
    const withToken = await certify(accessToken);
    const listed = await request(api.app)
      .get('/cert/v2/api-keys')
      .set('Authorization', `Bearer ${key}`);
    await request(api.app)
      .delete(`/cert/v2/api-keys/${id}`)
      .set('Authorization', `Bearer ${owner.token}`)
      .expect(200);
    const keyAfter = await certify(key);
    const tokenAfter = await certify(accessToken);

    // Assert
    expect(created.status).toBe(201);
    expect(exchanged.status).toBe(200);
    expect(withKey.status).toBe(201);
    expect(withToken.status).toBe(201);
    expect(listed.body).toMatchObject({ data: { apiKeys: [{ id, name: 'nightly import' }] } });
    for (const refused of [keyAfter, tokenAfter]) {
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        statusCode: 401,
        type: 'Authentication Error',
        message: 'Token is invalid',
      });
    }
  });

  it('when the token endpoint is asked for another grant or with a wrong key, then RFC 6749 errors', async () => {
    // Arrange
    const owner = await api.user();
    const created = await request(api.app)
      .post('/cert/v2/api-keys')
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ name: 'k' });
    const { id, key } = (created.body as CreatedKey).data;

    // Act
    const password = await request(api.app)
      .post('/cert/v2/oauth/token')
      .auth(id, key)
      .type('form')
      .send({ grant_type: 'password' });
    const wrong = await request(api.app)
      .post('/cert/v2/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: id, client_secret: `${key}x` });

    // Assert
    expect(password.status).toBe(400);
    expect(password.body).toMatchObject({ error: 'unsupported_grant_type' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
  });

  it.each([
    ['a JSON body that is not JSON', '?', 'application/json', '{"grant_type":'],
    ['a query holding U+0000', '?x=%00', 'application/x-www-form-urlencoded', 'grant_type=x'],
  ])(
    'when the token endpoint gets %s, then 400 with the error body its document names',
    async (_case, query, contentType, body) => {
      // Act: `request` fails the test when the document does not describe the answer.
      const response = await request(api.app)
        .post(`/cert/v2/oauth/token${query}`)
        .set('Content-Type', contentType)
        .send(body);

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
    },
  );

  it('when 40 keys are asked for at once by a user holding 19, then exactly one is made and the limit of 20 holds', async () => {
    // Arrange
    const owner = await api.user();
    const create = () =>
      request(api.app)
        .post('/cert/v2/api-keys')
        .set('Authorization', `Bearer ${owner.token}`)
        .send({ name: 'one of many' });
    for (let made = 0; made < 19; made += 1) expect((await create()).status).toBe(201);

    // Act
    const answers = await Promise.all(Array.from({ length: 40 }, create));

    // Assert
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(39).fill(400)]);
    const listed = await request(api.app)
      .get('/cert/v2/api-keys')
      .set('Authorization', `Bearer ${owner.token}`);
    expect((listed.body as { data: { apiKeys: unknown[] } }).data.apiKeys).toHaveLength(20);
  });
});
