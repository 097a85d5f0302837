import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { findApiKey } from '../src/index.js';
import { BASE, newUser, testApi } from './support/identity-app.js';

const TOKEN_PATH = `${BASE}/oauth/token`;

interface Key {
  id: string;
  key: string;
  scopes: string[];
  parentKeyId: string | null;
  expiresAt: string | null;
}

describe.each(testBackends())('scoped, bounded API keys on %s', (backend) => {
  let db: TestDatabase;
  let app: ReturnType<typeof testApi>;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    app = testApi(db.knex);
  });
  afterAll(async () => {
    await db.close();
  });

  const createKey = (token: string, body: object) =>
    request(app)
      .post(`${BASE}/api-keys`)
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k', ...body });
  const made = async (token: string, body: object = {}): Promise<Key> => {
    const response = await createKey(token, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return (response.body as { data: Key }).data;
  };
  const tokenFor = (key: Key, scope?: string) =>
    request(app)
      .post(TOKEN_PATH)
      .type('form')
      .send({
        grant_type: 'client_credentials',
        client_id: key.id,
        client_secret: key.key,
        ...(scope === undefined ? {} : { scope }),
      });
  const listKeys = (token: string) =>
    request(app).get(`${BASE}/api-keys`).set('Authorization', `Bearer ${token}`);

  it('when a user token makes a key without scopes, then it has every scope and no parent', async () => {
    // Arrange
    const user = await newUser(db.knex);

    // Act
    const key = await made(user.token);

    // Assert
    expect(key.scopes).toEqual(['read', 'certify', 'track', 'keys', 'webhooks', 'admin']);
    expect(key.parentKeyId).toBeNull();
  });

  it('when a key lacks the keys scope, then every key route is 403 naming the scope and nothing is made', async () => {
    // Arrange
    const user = await newUser(db.knex);
    const reader = await made(user.token, { scopes: ['read'] });

    // Act
    const creation = await createKey(reader.key, {});
    const listing = await listKeys(reader.key);

    // Assert
    for (const response of [creation, listing]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        statusCode: 403,
        type: 'Forbidden Error',
        message: 'The credential does not have the scope this operation requires',
        errors: [
          {
            field: 'scope',
            error: 'This operation requires the scope "keys"; the credential has "read"',
          },
        ],
      });
      expect(response.headers['www-authenticate']).toContain('error="insufficient_scope"');
    }
    const keys = (await listKeys(user.token)).body as { data: { apiKeys: Key[] } };
    expect(keys.data.apiKeys.map((k) => k.id)).toEqual([reader.id]);
  });

  it('when a key makes a key wider than itself, then 403 naming the extra scopes, and nothing is made', async () => {
    // Arrange
    const user = await newUser(db.knex);
    const parent = await made(user.token, { scopes: ['read', 'keys'] });

    // Act
    const response = await createKey(parent.key, { scopes: ['read', 'certify', 'keys'] });

    // Assert
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      statusCode: 403,
      type: 'Forbidden Error',
      errors: [
        {
          field: 'body.scopes',
          error: 'A key cannot have scopes the credential making it lacks: certify',
        },
      ],
    });
    const keys = (await listKeys(user.token)).body as { data: { apiKeys: Key[] } };
    expect(keys.data.apiKeys).toHaveLength(1);
  });

  it('when a key changes or revokes a key wider than itself, then 403 naming the extra scopes and the key is as it was; within its scopes it may', async () => {
    // Arrange: the user's full key, a key holding only read and keys, and a reader.
    const user = await newUser(db.knex);
    const full = await made(user.token);
    const manager = await made(user.token, { scopes: ['read', 'keys'] });
    const reader = await made(user.token, { scopes: ['read'] });
    const keyRoute = (id: string) => `${BASE}/api-keys/${id}`;

    // Act
    const revokeWider = await request(app)
      .delete(keyRoute(full.id))
      .set('Authorization', `Bearer ${manager.key}`);
    const narrowWider = await request(app)
      .patch(keyRoute(full.id))
      .set('Authorization', `Bearer ${manager.key}`)
      .send({ scopes: ['read'] });
    const narrowWithin = await request(app)
      .patch(keyRoute(reader.id))
      .set('Authorization', `Bearer ${manager.key}`)
      .send({ scopes: ['read'] });
    const revokeWithin = await request(app)
      .delete(keyRoute(reader.id))
      .set('Authorization', `Bearer ${manager.key}`);

    // Assert
    for (const response of [revokeWider, narrowWider]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ statusCode: 403, type: 'Forbidden Error' });
      expect(JSON.stringify(response.body)).toContain('certify');
    }
    const untouched = await findApiKey(db.knex, user.id, full.id);
    expect(untouched?.revokedAt).toBeNull();
    expect(untouched?.scopes).toEqual(full.scopes);
    expect(narrowWithin.status).toBe(200);
    expect(revokeWithin.status).toBe(200);
    expect((await findApiKey(db.knex, user.id, reader.id))?.revokedAt).not.toBeNull();
  });

  it("when a key makes a key, then the child has the parent's scopes by default, is its child and expires no later", async () => {
    // Arrange
    const user = await newUser(db.knex);
    const parentExpiry = new Date(Date.now() + 3_600_000);
    const parent = await made(user.token, {
      scopes: ['read', 'keys'],
      expiresAt: parentExpiry.toISOString(),
    });

    // Act
    const unbounded = await made(parent.key);
    const later = await made(parent.key, {
      scopes: ['read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const sooner = new Date(Date.now() + 600_000).toISOString();
    const earlier = await made(parent.key, { expiresAt: sooner });

    // Assert
    expect(unbounded).toMatchObject({
      scopes: ['read', 'keys'],
      parentKeyId: parent.id,
      expiresAt: parentExpiry.toISOString(),
    });
    expect(later).toMatchObject({ scopes: ['read'], expiresAt: parentExpiry.toISOString() });
    expect(earlier.expiresAt).toBe(sooner);
  });

  it('when a token exchanged for a key makes a key, then the child is bounded by the key and its narrowed scope', async () => {
    // Arrange
    const user = await newUser(db.knex);
    const parent = await made(user.token, { scopes: ['read', 'certify', 'keys'] });
    const token = ((await tokenFor(parent, 'read keys')).body as { access_token: string })
      .access_token;

    // Act
    const wider = await createKey(token, { scopes: ['certify'] });
    const child = await made(token);

    // Assert
    expect(wider.status).toBe(403);
    expect(child).toMatchObject({ scopes: ['read', 'keys'], parentKeyId: parent.id });
  });

  it('when a parent key is revoked, then its children and grandchildren are revoked with it and refused at once', async () => {
    // Arrange
    const user = await newUser(db.knex);
    const parent = await made(user.token, { scopes: ['read', 'keys'] });
    const child = await made(parent.key);
    const grandchild = await made(child.key);
    const sibling = await made(user.token, { scopes: ['keys'] });
    const childToken = ((await tokenFor(child)).body as { access_token: string }).access_token;
    expect((await listKeys(grandchild.key)).status).toBe(200);

    // Act
    const revoked = await request(app)
      .delete(`${BASE}/api-keys/${parent.id}`)
      .set('Authorization', `Bearer ${user.token}`);

    // Assert
    expect(revoked.status).toBe(200);
    for (const credential of [parent.key, child.key, grandchild.key, childToken]) {
      const response = await listKeys(credential);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ message: 'Token is invalid' });
    }
    expect((await findApiKey(db.knex, user.id, grandchild.id))?.revokedAt).toBeInstanceOf(Date);
    expect((await listKeys(sibling.key)).status).toBe(200);
  });

  it('when a token is narrowed at the token endpoint, then it carries the narrowed scope and cannot exceed it', async () => {
    // Arrange
    const user = await newUser(db.knex);
    const key = await made(user.token, { scopes: ['read', 'keys'] });

    // Act
    const narrowed = await tokenFor(key, 'read');
    const token = (narrowed.body as { access_token: string; scope: string }).access_token;
    const listing = await listKeys(token);

    // Assert
    expect(narrowed.status).toBe(200);
    expect(narrowed.body).toMatchObject({ scope: 'read' });
    expect(decodeJwt(token)).toMatchObject({ scope: 'read', client_id: key.id });
    expect(listing.status).toBe(403);
    expect(listing.body).toMatchObject({
      errors: [
        {
          field: 'scope',
          error: 'This operation requires the scope "keys"; the credential has "read"',
        },
      ],
    });
  });

  it.each([
    ['a scope the key lacks', 'read certify', 'The key does not have the scope: certify'],
    ['an unknown scope', 'read openid', 'Unknown scope: openid'],
  ])(
    'when the token endpoint is asked for %s, then 400 invalid_scope and no token',
    async (_name, scope, description) => {
      // Arrange
      const user = await newUser(db.knex);
      const key = await made(user.token, { scopes: ['read', 'keys'] });

      // Act
      const response = await tokenFor(key, scope);

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_scope', error_description: description });
    },
  );

  it('when the body names a scope that does not exist, then 400 on body.scopes', async () => {
    // Arrange
    const user = await newUser(db.knex);

    // Act
    const response = await createKey(user.token, { scopes: ['everything'] });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      statusCode: 400,
      errors: [{ field: 'body.scopes.0' }],
    });
  });
});
