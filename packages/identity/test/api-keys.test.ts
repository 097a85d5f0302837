import { findApiKey, createApiKey, listApiKeys, revokeApiKey } from '../src/index.js';
import { listAuditEntries } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { authenticationError, BASE, newUser, testApi } from './support/identity-app.js';

interface CreatedKey {
  data: { id: string; key: string; prefix: string; name: string; expiresAt: string | null };
}

describe.each(testBackends())('API keys on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await db.close();
  });

  const me = (app: ReturnType<typeof testApi>, token: string) =>
    request(app).get(`${BASE}/me`).set('Authorization', `Bearer ${token}`);

  const makeKey = async (app: ReturnType<typeof testApi>, token: string, body: object = {}) => {
    const response = await request(app)
      .post(`${BASE}/api-keys`)
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'import job', ...body });
    expect(response.status).toBe(201);
    return (response.body as CreatedKey).data;
  };

  it('when a user makes a key, then it is shown once, works as a bearer token and lists without the key', async () => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);

    // Act
    const created = await makeKey(app, alice.token);
    const asKey = await me(app, created.key);
    const listed = await request(app)
      .get(`${BASE}/api-keys`)
      .set('Authorization', `Bearer ${created.key}`);

    // Assert
    expect(created.key).toMatch(new RegExp(`^tp_live_${created.id}[0-9A-Za-z]{38}$`));
    expect(asKey.status).toBe(200);
    expect(asKey.body).toMatchObject({ data: { id: alice.id } });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    expect(listed.body).toMatchObject({
      data: { apiKeys: [{ id: created.id, name: 'import job', prefix: `tp_live_${created.id}` }] },
    });
    const stored = await findApiKey(db.knex, alice.id, created.id);
    expect(stored?.lastUsedAt).not.toBeNull();
    expect(stored?.createdBy).toBe(alice.id);
  });

  it('when a key is revoked, then the very next request with it is 401 "Token is invalid"', async () => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);
    const created = await makeKey(app, alice.token);
    expect((await me(app, created.key)).status).toBe(200);

    // Act
    const revoked = await request(app)
      .delete(`${BASE}/api-keys/${created.id}`)
      .set('Authorization', `Bearer ${alice.token}`);
    const after = await me(app, created.key);

    // Assert
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      data: { id: created.id, revokedAt: expect.any(String) as string },
    });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(authenticationError('Token is invalid'));
    expect(await listApiKeys(db.knex, alice.id)).toEqual([]);
    expect(await listApiKeys(db.knex, alice.id, { includeRevoked: true })).toHaveLength(1);
  });

  it('when a key was revoked in another process (straight in the database), then this one refuses it at once', async () => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);
    const { apiKey, key } = await createApiKey(db.knex, { userId: alice.id, name: 'ci' });
    expect((await me(app, key)).status).toBe(200);

    // Act
    await revokeApiKey(db.knex, { userId: alice.id, id: apiKey.id, revokedBy: 'admin' });
    const after = await me(app, key);

    // Assert
    expect(after.body).toEqual(authenticationError('Token is invalid'));
  });

  it('when a key has expired, then 401 "Token is expired"', async () => {
    // Arrange
    const alice = await newUser(db.knex);
    const { key } = await createApiKey(db.knex, {
      userId: alice.id,
      name: 'short-lived',
      expiresAt: new Date(Date.now() + 60_000),
    });
    const app = testApi(db.knex);
    const later = testApi(db.knex, { now: () => Date.now() + 61_000 });

    // Act
    const before = await me(app, key);
    const after = await me(later, key);

    // Assert
    expect(before.status).toBe(200);
    expect(after.status).toBe(401);
    expect(after.body).toEqual(authenticationError('Token is expired'));
  });

  it.each([
    ['a wrong checksum', (key: string) => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`],
    ['a key of the right shape never made', () => `tp_live_${'A'.repeat(50)}`],
    ['a truncated key', (key: string) => key.slice(0, 30)],
  ])('when the key has %s, then 401 "Token is invalid"', async (_case, alter) => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);
    const { key } = await createApiKey(db.knex, { userId: alice.id, name: 'k' });

    // Act
    const response = await me(app, alter(key));

    // Assert
    expect(response.status).toBe(401);
    expect(response.body).toEqual(authenticationError('Token is invalid'));
  });

  it('when the key’s user is disabled, then 401 "User credentials are wrong"', async () => {
    // Arrange
    const alice = await newUser(db.knex);
    const { key } = await createApiKey(db.knex, { userId: alice.id, name: 'k' });
    const app = testApi(db.knex, { disabled: new Set([alice.id]) });

    // Act
    const response = await me(app, key);

    // Assert
    expect(response.body).toEqual(authenticationError('User credentials are wrong'));
  });

  it('when a user revokes or reads another user’s key, then 404', async () => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);
    const mallory = await newUser(db.knex);
    const created = await makeKey(app, alice.token);

    // Act
    const revoke = await request(app)
      .delete(`${BASE}/api-keys/${created.id}`)
      .set('Authorization', `Bearer ${mallory.token}`);
    const read = await request(app)
      .get(`${BASE}/api-keys/${created.id}`)
      .set('Authorization', `Bearer ${mallory.token}`);

    // Assert
    expect(revoke.status).toBe(404);
    expect(read.status).toBe(404);
    expect((await me(app, created.key)).status).toBe(200);
  });

  it('when the body is wrong or the expiry is past, then 400 naming the field', async () => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);
    const post = (body: object) =>
      request(app)
        .post(`${BASE}/api-keys`)
        .set('Authorization', `Bearer ${alice.token}`)
        .send(body);

    // Act
    const noName = await post({});
    const past = await post({ name: 'k', expiresAt: new Date(Date.now() - 1_000).toISOString() });

    // Assert
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ errors: [{ field: 'body.name' }] });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ errors: [{ field: 'body.expiresAt' }] });
  });

  it('when the key routes are called without a token, then 401 "Token is not provided"', async () => {
    // Act
    const response = await request(testApi(db.knex)).get(`${BASE}/api-keys`);

    // Assert
    expect(response.body).toEqual(authenticationError('Token is not provided'));
  });

  it('when a user makes and revokes a key, then both are in the audit log with the request id, never the key', async () => {
    // Arrange
    const app = testApi(db.knex);
    const alice = await newUser(db.knex);

    // Act
    const created = await makeKey(app, alice.token);
    const revoke = () =>
      request(app)
        .delete(`${BASE}/api-keys/${created.id}`)
        .set('Authorization', `Bearer ${alice.token}`)
        .set('X-Request-Id', 'revoke-key-1');
    await revoke();
    await revoke();

    // Assert
    const { entries } = await listAuditEntries(db.knex, {
      target: `api-key:${created.id}`,
      offset: 0,
      limit: 10,
    });
    expect(entries.map((entry) => [entry.action, entry.actorId, entry.changes])).toEqual([
      ['api-key.revoke', alice.id, { userId: alice.id }],
      [
        'api-key.create',
        alice.id,
        {
          userId: alice.id,
          name: 'import job',
          expiresAt: null,
          scopes: ['read', 'certify', 'track', 'keys', 'webhooks', 'admin'],
          parentKeyId: null,
        },
      ],
    ]);
    expect(entries[0]?.requestId).toBe('revoke-key-1');
    expect(JSON.stringify(entries)).not.toContain(created.key);
  });
});
