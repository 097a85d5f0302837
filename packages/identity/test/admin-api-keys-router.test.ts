import { batchedUserLookup } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { authenticate, createApiApp, currentUser } from '@trustpoint/http';
import { DomainError } from '@trustpoint/domain';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { apiKeysRouter, Identities } from '../src/index.js';
import { JWT_SECRET, newUser } from './support/identity-app.js';

interface KeyAnswer {
  data: { id: string; key: string; createdBy: string; revokedAt: string | null };
}

describe.each(testBackends())('apiKeysRouter mounted for administrators on %s', (backend) => {
  let db: TestDatabase;
  let app: ReturnType<typeof createApiApp>;
  let admin: { id: string; token: string };

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    admin = await newUser(db.knex);
    const identities = new Identities({ knex: db.knex, jwtSecret: JWT_SECRET });
    const auth = { tokens: identities, findUser: batchedUserLookup(db.knex) };
    // As the admin API would mount it: its own guard, the owner from the path.
    app = createApiApp({
      basePath: '/admin/v1',
      docs: { document: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } },
      routers: [
        apiKeysRouter({
          knex: db.knex,
          path: '/users/:userId/api-keys',
          guard: [
            authenticate(auth),
            (_req, res, next) => {
              if (currentUser(res).id !== admin.id) throw new DomainError('wrongCredentials');
              next();
            },
          ],
          owner: (req) => String(req.params.userId),
          actor: (_req, res) => currentUser(res).id,
          listRevoked: true,
          widenScopes: true,
        }),
      ],
      logger: pino({ level: 'silent' }),
      tokens: identities,
    });
  });
  afterAll(async () => {
    await db.close();
  });

  it('when an administrator makes, lists and revokes a user’s key, then the key is the user’s and both acts are recorded', async () => {
    // Arrange
    const customer = await newUser(db.knex);
    const base = `/admin/v1/users/${customer.id}/api-keys`;
    const asAdmin = { Authorization: `Bearer ${admin.token}` };

    // Act
    const created = await request(app).post(base).set(asAdmin).send({ name: 'for acme' });
    const { id } = (created.body as KeyAnswer).data;
    const revoked = await request(app).delete(`${base}/${id}`).set(asAdmin);
    const listed = await request(app).get(base).set(asAdmin);

    // Assert
    expect(created.status).toBe(201);
    expect((created.body as KeyAnswer).data.createdBy).toBe(admin.id);
    expect(revoked.status).toBe(200);
    expect(listed.body).toMatchObject({
      data: { apiKeys: [{ id, createdBy: admin.id, revokedAt: expect.any(String) as string }] },
    });
  });

  it("when mounted with widenScopes, then an administrator may add scopes to a user's key, and the user may not", async () => {
    // Arrange
    const customer = await newUser(db.knex);
    const base = `/admin/v1/users/${customer.id}/api-keys`;
    const asAdmin = { Authorization: `Bearer ${admin.token}` };
    const created = await request(app)
      .post(base)
      .set(asAdmin)
      .send({ name: 'k', scopes: ['read'] });
    const { id } = (created.body as KeyAnswer).data;

    // Act
    const widened = await request(app)
      .patch(`${base}/${id}`)
      .set(asAdmin)
      .send({ scopes: ['read', 'certify'] });
    const byCustomer = await request(app)
      .patch(`${base}/${id}`)
      .set('Authorization', `Bearer ${customer.token}`)
      .send({ scopes: ['read', 'certify', 'track'] });

    // Assert
    expect(widened.status).toBe(200);
    expect(widened.body).toMatchObject({ data: { id, scopes: ['read', 'certify'] } });
    expect(byCustomer.status).toBe(401);
  });

  it('when the user does not exist, then 404; when the caller is not the administrator, then 401', async () => {
    // Arrange
    const customer = await newUser(db.knex);

    // Act
    const missing = await request(app)
      .post('/admin/v1/users/nobody-here/api-keys')
      .set('Authorization', `Bearer ${admin.token}`)
      .send({ name: 'k' });
    const notAdmin = await request(app)
      .get(`/admin/v1/users/${customer.id}/api-keys`)
      .set('Authorization', `Bearer ${customer.token}`);

    // Assert
    expect(missing.status).toBe(404);
    expect(notAdmin.status).toBe(401);
  });
});
