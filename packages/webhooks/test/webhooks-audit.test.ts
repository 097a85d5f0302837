import { randomBytes, randomUUID } from 'node:crypto';
import { batchedUserLookup, createUser, listAuditEntries, savePlan } from '@trustpoint/db';
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

describe.each(testBackends())('webhook endpoint changes in the audit log on %s', (backend) => {
  let db: TestDatabase;
  const settings: WebhookSettings = {
    sealer: createSecretSealer(randomBytes(32)),
    addressPolicy: { allowAddresses: [], allowPrivateAddresses: false },
    maxEndpointsPerUser: 1,
  };
  const app = () => {
    const tokens = new AccessTokens({
      secret: SECRET,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
    });
    return createApiApp({
      basePath: '/cert/v2',
      docs: { document: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } },
      routers: [
        webhooksRouter(db.knex, settings, { tokens, findUser: batchedUserLookup(db.knex) }),
      ],
      logger: pino({ level: 'silent' }),
      tokens,
    });
  };
  const user = async () => {
    const id = `user-${randomUUID()}`;
    await savePlan(db.knex, { id: `plan-${id}`, name: 'plan', networkIds: [] });
    await createUser(db.knex, { id, displayName: id, planId: `plan-${id}` });
    const token = await mintAccessToken(SECRET, { subject: id, ttlSeconds: 600 });
    return { id, auth: { Authorization: `Bearer ${token}` } };
  };
  const auditOf = async (actorId: string) =>
    (await listAuditEntries(db.knex, { actorId, offset: 0, limit: 10 })).entries;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await db.close();
  });

  it('when an endpoint is created and deleted, then both are recorded with the request id, never the secret', async () => {
    // Arrange
    const api = app();
    const owner = await user();

    // Act
    const created = await request(api)
      .post('/cert/v2/webhooks/endpoints')
      .set(owner.auth)
      .set('X-Request-Id', 'hook-1')
      .send({ url: 'https://93.184.215.14/hooks', events: ['certificate.revoked'] });
    const { id, secret } = (created.body as { data: { id: string; secret: string } }).data;
    const deleted = await request(api).delete(`/cert/v2/webhooks/endpoints/${id}`).set(owner.auth);

    // Assert
    expect([created.status, deleted.status]).toEqual([201, 200]);
    const entries = await auditOf(owner.id);
    expect(entries.map((entry) => [entry.action, entry.target, entry.changes])).toEqual([
      [
        'webhook-endpoint.delete',
        `webhook-endpoint:${id}`,
        { url: 'https://93.184.215.14/hooks', events: ['certificate.revoked'] },
      ],
      [
        'webhook-endpoint.create',
        `webhook-endpoint:${id}`,
        { url: 'https://93.184.215.14/hooks', events: ['certificate.revoked'] },
      ],
    ]);
    expect(entries[1]?.requestId).toBe('hook-1');
    expect(JSON.stringify(entries)).not.toContain(secret);
  });

  it('when an endpoint is refused (over the limit), then nothing is recorded for it', async () => {
    // Arrange
    const api = app();
    const owner = await user();
    await request(api)
      .post('/cert/v2/webhooks/endpoints')
      .set(owner.auth)
      .send({ url: 'https://93.184.215.14/first' });

    // Act
    const refused = await request(api)
      .post('/cert/v2/webhooks/endpoints')
      .set(owner.auth)
      .send({ url: 'https://93.184.215.14/second' });

    // Assert
    expect(refused.status).toBe(400);
    expect((await auditOf(owner.id)).map((entry) => entry.changes.url)).toEqual([
      'https://93.184.215.14/first',
    ]);
  });
});
