import { randomBytes, randomUUID } from 'node:crypto';
import { batchedUserLookup, createUser, savePlan } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import {
  AccessTokens,
  createApiApp,
  mintAccessToken,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
} from '@trustpoint/http';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretSealer, webhooksRouter, type WebhookSettings } from '../src/index.js';

const SECRET = randomBytes(32).toString('base64url');

interface Answer {
  data: { id: string; endpoints: { id: string }[] };
  errors: { field: string; error: string }[];
}
const answer = (response: { body: unknown }) => response.body as Answer;

describe.each(testBackends())('webhook endpoints shared by two APIs on %s', (backend) => {
  let db: TestDatabase;
  const settings: WebhookSettings = {
    sealer: createSecretSealer(randomBytes(32)),
    addressPolicy: { allowAddresses: [], allowPrivateAddresses: false },
    maxEndpointsPerUser: 2,
  };
  const apiAt = (basePath: string) => {
    const tokens = new AccessTokens({
      secret: SECRET,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
    });
    const auth = { tokens, findUser: batchedUserLookup(db.knex) };
    return createApiApp({
      basePath,
      docs: { document: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } },
      routers: [webhooksRouter(db.knex, settings, auth)],
      logger: pino({ level: 'silent' }),
      tokens,
    });
  };
  const user = async () => {
    const id = `user-${randomUUID()}`;
    await savePlan(db.knex, { id: `plan-${id}`, name: 'plan', networkIds: [] });
    await createUser(db.knex, { id, displayName: id, planId: `plan-${id}` });
    const token = await mintAccessToken(SECRET, { subject: id, ttlSeconds: 600 });
    return { Authorization: `Bearer ${token}` };
  };

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await db.close();
  });

  it('when an endpoint is made on one API, then the other lists it and may delete it', async () => {
    const cert = apiAt('/cert/v2');
    const track = apiAt('/track/v2');
    const auth = await user();
    const created = await request(cert)
      .post('/cert/v2/webhooks/endpoints')
      .set(auth)
      .send({ url: 'https://93.184.215.14/hooks' });
    expect(created.status).toBe(201);
    const listed = await request(track).get('/track/v2/webhooks/endpoints').set(auth);
    expect(answer(listed).data.endpoints.map((e) => e.id)).toEqual([answer(created).data.id]);
    expect(answer(listed).data.endpoints[0]).not.toHaveProperty('secret');
    const deleted = await request(track)
      .delete(`/track/v2/webhooks/endpoints/${answer(created).data.id}`)
      .set(auth);
    expect(deleted.status).toBe(200);
    const after = await request(cert).get('/cert/v2/webhooks/endpoints').set(auth);
    expect(answer(after).data.endpoints).toEqual([]);
  });

  it('when the user has the most endpoints allowed, then one more is refused whichever API is asked', async () => {
    const auth = await user();
    for (const base of ['/cert/v2', '/track/v2']) {
      const response = await request(apiAt(base))
        .post(`${base}/webhooks/endpoints`)
        .set(auth)
        .send({ url: 'https://93.184.215.14/h' });
      expect(response.status).toBe(201);
    }
    const third = await request(apiAt('/cert/v2'))
      .post('/cert/v2/webhooks/endpoints')
      .set(auth)
      .send({ url: 'https://93.184.215.14/h' });
    expect(third.status).toBe(400);
    expect(answer(third).errors).toEqual([
      { field: 'body', error: 'A user may have at most 2 webhook endpoints' },
    ]);
  });

  it('when the URL names port 0, then 400 on body.url saying it cannot be connected to', async () => {
    // Arrange
    const auth = await user();
    const app = apiAt('/cert/v2');

    for (const url of ['http://93.184.216.34:0/', 'https://93.184.215.14:00/h']) {
      // Act
      const response = await request(app)
        .post('/cert/v2/webhooks/endpoints')
        .set(auth)
        .send({ url });

      // Assert
      expect(response.status, url).toBe(400);
      expect(answer(response).errors[0]).toMatchObject({
        field: 'body.url',
        error: expect.stringContaining('Port 0 cannot be connected to') as unknown,
      });
    }
  });

  it('when the URL carries credentials or a non-public literal address, then 400 on body.url', async () => {
    const auth = await user();
    const app = apiAt('/cert/v2');
    for (const url of [
      'https://user:pw@93.184.215.14/h',
      'http://127.0.0.1/h',
      'http://[fd00::1]/h',
      'http://[::ffff:10.0.0.1]/h',
    ]) {
      const response = await request(app)
        .post('/cert/v2/webhooks/endpoints')
        .set(auth)
        .send({ url });
      expect(response.status, url).toBe(400);
      expect(answer(response).errors[0]?.field).toBe('body.url');
    }
  });

  it('when the URL is longer than 2,048 characters, then 400 on body.url saying so, not that it is no URL', async () => {
    // Arrange
    const auth = await user();
    const app = apiAt('/cert/v2');
    const longest = `https://example.org/${'a'.repeat(2048 - 20)}`;

    // Act
    const tooLong = await request(app)
      .post('/cert/v2/webhooks/endpoints')
      .set(auth)
      .send({ url: `${longest}a` });
    const atMost = await request(app)
      .post('/cert/v2/webhooks/endpoints')
      .set(auth)
      .send({ url: longest });

    // Assert
    expect(tooLong.status).toBe(400);
    expect(answer(tooLong).errors).toEqual([
      { field: 'body.url', error: 'At most 2048 characters' },
    ]);
    expect(atMost.status).toBe(201);
  });
});
