import { testBackends } from '@trustpoint/test-database';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE_PATH } from '../src/index.js';
import { startAdminApi, type AdminFixture } from './support/admin-fixture.js';

const checked = checkedRequest(ADMIN_API_BASE_PATH);
const at = (path: string) => `${ADMIN_API_BASE_PATH}${path}`;

// Mistakes a newcomer following the README made: each answer says what happened and what to do,
// in the spec's error body (the catalogue's message, and `errors` saying what to do).
describe.each(testBackends())('answers a newcomer can act on, on %s', (backend) => {
  let api: AdminFixture;
  let admin: Awaited<ReturnType<AdminFixture['givenUser']>>;

  beforeAll(async () => {
    api = await startAdminApi(backend);
    admin = await api.givenUser({ role: 'admin' });
  });
  afterAll(async () => {
    await api.close();
  });

  it.each([
    ['a token without the Bearer scheme', (token: string) => token, 'The Bearer scheme is missing'],
    ['another scheme', () => 'Basic dXNlcjpwYXNz', 'The Basic scheme is not accepted'],
    ['Bearer alone', () => 'Bearer', 'Bearer needs a token after it'],
  ])(
    'when the Authorization header holds %s, then 401 Token is not provided, saying how to send it',
    async (_case, header, hint) => {
      // Act
      const response = await checked(api.app)
        .get(at('/users'))
        .set('Authorization', header(admin.auth.Authorization.slice('Bearer '.length)));

      // Assert
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        statusCode: 401,
        type: 'Authentication Error',
        message: 'Token is not provided',
        errors: [
          {
            field: 'Authorization',
            error: `${hint}: send "Authorization: Bearer <token>"`,
          },
        ],
      });
    },
  );

  it('when a JSON body is sent without Content-Type, then 400 saying Content-Type application/json is needed, and no plan is made', async () => {
    // Act
    const response = await request(api.app)
      .post(at('/plans'))
      .set(admin.auth)
      .send(Buffer.from(JSON.stringify({ id: 'no-type', name: 'x', networkIds: [] })));

    // Assert
    expect(response.status).toBe(400);
    expect((response.body as { errors?: unknown }).errors).toEqual([
      { field: 'body', error: 'A JSON body is required, sent with Content-Type: application/json' },
    ]);
    expect(await api.auditOf('plan:no-type')).toEqual([]);
  });

  it('when a 3 MB JSON body is sent, then 413 stating the 1 MiB limit', async () => {
    // Act
    const response = await request(api.app)
      .post(at('/plans'))
      .set(admin.auth)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ id: 'big', name: 'x'.repeat(3_000_000), networkIds: [] }));

    // Assert
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      statusCode: 413,
      type: 'Payload Too Large Error',
      message: 'The request payload exceeds the configured limit',
      errors: [
        {
          field: 'body',
          error: 'A JSON body may be at most 1 MiB',
        },
      ],
    });
  });

  it.each(['/', '/cert/v2'])(
    'when GET %s is asked, then 404 pointing to the docs pages',
    async (path) => {
      // Act
      const response = await request(api.app).get(path);

      // Assert
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        statusCode: 404,
        type: 'Not Found Error',
        message: 'The requested resource was not found',
        errors: [
          {
            field: 'path',
            error:
              'No operation at this method and path; the operations are listed at /cert/v2/docs/, /admin/v1/docs/',
          },
        ],
      });
    },
  );

  it('when credits are granted to a user that does not exist, then 404 naming the user, and nothing is recorded', async () => {
    // Act
    const response = await checked(api.app)
      .post(at('/users/ghost/credits/grant'))
      .set(admin.auth)
      .send({ amount: 5 });

    // Assert
    expect(response.status).toBe(404);
    expect((response.body as { errors?: unknown }).errors).toEqual([
      { field: 'id', error: 'There is no user "ghost"' },
    ]);
    expect(await api.auditOf('user:ghost')).toEqual([]);
  });
});
