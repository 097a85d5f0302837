import { randomUUID } from 'node:crypto';
import { findUserAccount, listCreditMovements } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { mintAccessToken } from '@trustpoint/http';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE_PATH } from '../src/index.js';
import { startAdminApi, type AdminFixture } from './support/admin-fixture.js';

const request = checkedRequest(ADMIN_API_BASE_PATH);
const at = (path: string) => `${ADMIN_API_BASE_PATH}${path}`;

interface Body {
  statusCode: number;
  type?: string;
  message: string;
  errors?: { field: string; error: string }[];
  data: Record<string, unknown> & {
    users?: { id: string }[];
    entries?: { action: string; target: string; actor: string; requestId: string }[];
    movements?: { kind: string; amount: number; balanceAfter: number }[];
    pagination?: { total: number };
  };
}
const body = (response: { body: unknown }) => response.body as Body;

describe.each(testBackends())('admin API on %s', (backend) => {
  let api: AdminFixture;
  let admin: Awaited<ReturnType<AdminFixture['givenUser']>>;

  beforeAll(async () => {
    api = await startAdminApi(backend);
    admin = await api.givenUser({ role: 'admin' });
  });

  afterAll(async () => {
    await api.close();
  });

  const newUserBody = (overrides: Record<string, unknown> = {}) => ({
    id: `user-${randomUUID()}`,
    displayName: 'Ada',
    planId: admin.planId,
    ...overrides,
  });

  describe('who may call it', () => {
    it.each([
      ['no token', undefined, 'Token is not provided'],
      ['a token that is no JWT', 'Bearer nonsense', 'Token is invalid'],
    ])('when the caller sends %s, then 401 with the spec message', async (_, header, message) => {
      // Arrange
      const call = request(api.app).get(at('/users'));
      if (header !== undefined) void call.set('Authorization', header);

      // Act
      const response = await call;

      // Assert
      expect(response.status).toBe(401);
      expect(body(response)).toEqual({ statusCode: 401, type: 'Authentication Error', message });
    });

    it('when the token is expired, then 401 Token is expired', async () => {
      // Arrange
      const token = await mintAccessToken(api.secret, { subject: admin.id, ttlSeconds: -3600 });

      // Act
      const response = await request(api.app)
        .get(at('/users'))
        .set('Authorization', `Bearer ${token}`);

      // Assert
      expect(response.status).toBe(401);
      expect(body(response).message).toBe('Token is expired');
    });

    it('when a user without the admin role calls, then 403 in the spec shape and nothing changes', async () => {
      // Arrange
      const user = await api.givenUser();
      const target = newUserBody();

      // Act
      const responses = await Promise.all([
        request(api.app).post(at('/users')).set(user.auth).send(target),
        request(api.app).get(at('/users')).set(user.auth),
        request(api.app)
          .post(at(`/users/${user.id}/credits/grant`))
          .set(user.auth)
          .send({ amount: 5 }),
        request(api.app)
          .patch(at(`/users/${user.id}`))
          .set(user.auth)
          .send({ role: 'admin' }),
        request(api.app).get(at('/audit')).set(user.auth),
      ]);

      // Assert
      for (const response of responses) {
        expect(response.status).toBe(403);
        expect(body(response)).toEqual({
          statusCode: 403,
          type: 'Forbidden Error',
          message: 'This operation requires an administrator',
        });
      }
      expect(await findUserAccount(api.db.knex, target.id)).toBeUndefined();
      expect(await findUserAccount(api.db.knex, user.id)).toMatchObject({
        role: 'user',
        credits: 0,
      });
      expect(await api.auditOf(`user:${user.id}`)).toEqual([]);
    });
  });

  describe('users', () => {
    it('when an admin creates a user, then it exists with its plan, credits and flag, in the ledger and the audit log', async () => {
      // Arrange
      const wanted = newUserBody({ qualified: true, credits: 25 });

      // Act
      const response = await request(api.app)
        .post(at('/users'))
        .set(admin.auth)
        .set('X-Request-Id', 'create-user-1')
        .send(wanted);

      // Assert
      expect(response.status).toBe(201);
      expect(body(response).data).toEqual({
        id: wanted.id,
        displayName: 'Ada',
        role: 'user',
        qualified: true,
        planId: admin.planId,
        networkIds: ['31337'],
        credits: 25,
        disabled: false,
        disabledAt: null,
        createdAt: expect.any(String) as unknown,
      });
      expect(await api.auditOf(`user:${wanted.id}`)).toEqual([
        expect.objectContaining({
          actorId: admin.id,
          requestId: 'create-user-1',
          action: 'user.create',
          changes: expect.objectContaining({ credits: 25, qualified: true }) as unknown,
        }),
      ]);
      const { movements } = await listCreditMovements(api.db.knex, wanted.id, {
        offset: 0,
        limit: 5,
        order: 'asc',
      });
      expect(movements).toEqual([
        expect.objectContaining({ kind: 'initial', amount: 25, actorId: admin.id }),
      ]);
    });

    it('when the id is taken, then 409 and the first user stays as it was', async () => {
      // Arrange
      const wanted = newUserBody();
      await request(api.app).post(at('/users')).set(admin.auth).send(wanted);

      // Act
      const response = await request(api.app)
        .post(at('/users'))
        .set(admin.auth)
        .send({ ...wanted, displayName: 'Other', credits: 99 });

      // Assert
      expect(response.status).toBe(409);
      expect(body(response)).toEqual({
        statusCode: 409,
        type: 'Conflict Error',
        message: 'The resource already exists, please try again with a different id',
      });
      expect(await findUserAccount(api.db.knex, wanted.id)).toMatchObject({
        displayName: 'Ada',
        credits: 0,
      });
      expect(await api.auditOf(`user:${wanted.id}`)).toHaveLength(1);
    });

    it.each([
      ['an unknown plan', { planId: 'no-such-plan' }, 'body.planId'],
      ['a negative balance', { credits: -1 }, 'body.credits'],
      ['an unknown role', { role: 'root' }, 'body.role'],
      ['an id with a space', { id: 'a b' }, 'body.id'],
      ['the id ..', { id: '..' }, 'body.id'],
      ['the id .', { id: '.' }, 'body.id'],
      ['an id with a slash', { id: 'a/b' }, 'body.id'],
      ['an id with a backslash', { id: 'a\\b' }, 'body.id'],
      ['an id with a percent sign', { id: 'a%2fb' }, 'body.id'],
      ['an id with a control character', { id: 'a\u0001b' }, 'body.id'],
      ['a balance above what credits set allows', { credits: 1_000_000_000_001 }, 'body.credits'],
      ['an unknown field', { password: 'x' }, 'body'],
    ])('when the body has %s, then 400 on that field and no user', async (_, change, field) => {
      // Arrange
      const wanted = newUserBody(change);

      // Act
      const response = await request(api.app).post(at('/users')).set(admin.auth).send(wanted);

      // Assert
      expect(response.status).toBe(400);
      expect(body(response).errors?.map((error) => error.field)).toContain(field);
      expect(await api.auditOf(`user:${wanted.id}`)).toEqual([]);
    });

    it('when the balance to start with is far too large, then the 400 says so once', async () => {
      // Arrange: beyond the safe integers as well as beyond the maximum.
      const wanted = newUserBody({ credits: 2 ** 53 });

      // Act
      const response = await request(api.app).post(at('/users')).set(admin.auth).send(wanted);

      // Assert
      expect(response.status).toBe(400);
      expect(body(response).errors).toEqual([
        { field: 'body.credits', error: 'Too big: expected number to be <=1000000000000' },
      ]);
    });

    it('when users are listed, then a page comes with the total, disabled users included', async () => {
      // Arrange
      const first = await api.givenUser();
      await api.givenUser();

      // Act
      const all = await request(api.app).get(at('/users?limit=100')).set(admin.auth);
      const page = await request(api.app).get(at('/users?offset=1&limit=1')).set(admin.auth);
      const bad = await request(api.app).get(at('/users?limit=1000')).set(admin.auth);

      // Assert
      expect(all.status).toBe(200);
      const ids = body(all).data.users?.map((user) => user.id) ?? [];
      expect(ids).toContain(first.id);
      expect(ids).toEqual([...ids].sort());
      expect(body(page).data.users).toHaveLength(1);
      expect(body(page).data.pagination?.total).toBe(body(all).data.pagination?.total);
      expect(bad.status).toBe(400);
    });

    it('when a user is shown, then with its balance; an unknown one is a 404', async () => {
      // Arrange
      const user = await api.givenUser({ credits: 3 });

      // Act
      const shown = await request(api.app)
        .get(at(`/users/${user.id}`))
        .set(admin.auth);
      const unknown = await request(api.app).get(at('/users/nobody-here')).set(admin.auth);

      // Assert
      expect(body(shown).data).toMatchObject({ id: user.id, credits: 3, disabled: false });
      expect(unknown.status).toBe(404);
      expect(body(unknown)).toEqual({
        statusCode: 404,
        type: 'Not Found Error',
        message: 'The requested resource was not found',
        errors: [{ field: 'id', error: 'There is no user "nobody-here"' }],
      });
    });

    it('when a user is changed, then the fields change and the audit entry says which', async () => {
      // Arrange
      const user = await api.givenUser();

      // Act
      const response = await request(api.app)
        .patch(at(`/users/${user.id}`))
        .set(admin.auth)
        .send({ qualified: true, role: 'admin', displayName: user.id });

      // Assert
      expect(response.status).toBe(200);
      expect(body(response).data).toMatchObject({ qualified: true, role: 'admin' });
      expect(await api.auditOf(`user:${user.id}`)).toEqual([
        expect.objectContaining({
          action: 'user.update',
          changes: { qualified: true, role: 'admin' },
        }),
      ]);
    });

    it('when an admin takes their own admin role away, then 400 and they stay admin', async () => {
      // Act
      const response = await request(api.app)
        .patch(at(`/users/${admin.id}`))
        .set(admin.auth)
        .send({ role: 'user' });

      // Assert
      expect(response.status).toBe(400);
      expect(body(response).errors).toEqual([
        { field: 'body.role', error: 'An administrator cannot take their own admin role away' },
      ]);
      expect((await findUserAccount(api.db.knex, admin.id))?.role).toBe('admin');
    });

    it("when two admins take each other's admin role away at once, then one of them stays admin", async () => {
      // Arrange
      const first = await api.givenUser({ role: 'admin' });
      const second = await api.givenUser({ role: 'admin' });

      // Act: both requests are authenticated as admins before either change is made.
      const responses = await Promise.all([
        request(api.app)
          .patch(at(`/users/${second.id}`))
          .set(first.auth)
          .send({ role: 'user' }),
        request(api.app)
          .patch(at(`/users/${first.id}`))
          .set(second.auth)
          .send({ role: 'user' }),
      ]);
      const roles = await Promise.all(
        [first, second].map(async (user) => (await findUserAccount(api.db.knex, user.id))?.role),
      );

      // Assert
      expect(responses.map((response) => response.status).sort()).toEqual([200, 403]);
      expect(roles.sort()).toEqual(['admin', 'user']);
    });

    it.each([
      ['an empty body', {}],
      ['an unknown plan', { planId: 'no-such-plan' }],
    ])('when a change has %s, then 400 and nothing changes', async (_, change) => {
      // Arrange
      const user = await api.givenUser();

      // Act
      const response = await request(api.app)
        .patch(at(`/users/${user.id}`))
        .set(admin.auth)
        .send(change);

      // Assert
      expect(response.status).toBe(400);
      expect(await api.auditOf(`user:${user.id}`)).toEqual([]);
    });

    it('when a user is disabled and enabled again, then its tokens from before stay refused and a new one works', async () => {
      // Arrange
      const other = await api.givenUser({ role: 'admin' });
      const before = await request(api.app).get(at('/users')).set(other.auth);

      // Act
      const disabled = await request(api.app)
        .post(at(`/users/${other.id}/disable`))
        .set(admin.auth)
        .send({ reason: 'left the company' });
      const refused = await request(api.app).get(at('/users')).set(other.auth);
      const enabled = await request(api.app)
        .post(at(`/users/${other.id}/enable`))
        .set(admin.auth);
      const again = await request(api.app).get(at('/users')).set(other.auth);
      // Tokens carry whole seconds: a new one from a later second than the disabling.
      const disabledAt = Date.parse(String(body(disabled).data.disabledAt));
      await new Promise((resolve) => setTimeout(resolve, 1_050 - (disabledAt % 1_000)));
      const minted = await request(api.app)
        .post(at(`/users/${other.id}/tokens`))
        .set(admin.auth)
        .send({ expiresInSeconds: 600 });
      const fresh = await request(api.app)
        .get(at('/users'))
        .set('Authorization', `Bearer ${String(body(minted).data.accessToken)}`);

      // Assert
      expect(before.status).toBe(200);
      expect(disabled.status).toBe(200);
      expect(body(disabled).data).toMatchObject({
        disabled: true,
        disabledAt: expect.any(String) as unknown,
      });
      expect(refused.status).toBe(401);
      expect(body(refused).message).toBe('User credentials are wrong');
      expect(body(enabled).data).toMatchObject({ disabled: false, disabledAt: null });
      expect(again.status).toBe(401);
      expect(body(again)).toEqual({
        statusCode: 401,
        type: 'Authentication Error',
        message: 'Token is invalid',
      });
      expect(minted.status).toBe(201);
      expect(fresh.status).toBe(200);
      expect((await api.auditOf(`user:${other.id}`)).map((entry) => entry.action)).toEqual([
        'token.mint',
        'user.enable',
        'user.disable',
      ]);
    });

    it('when a disabled user is disabled again, then nothing new is recorded', async () => {
      // Arrange
      const user = await api.givenUser();
      await request(api.app)
        .post(at(`/users/${user.id}/disable`))
        .set(admin.auth);

      // Act
      const again = await request(api.app)
        .post(at(`/users/${user.id}/disable`))
        .set(admin.auth);

      // Assert
      expect(again.status).toBe(200);
      expect(await api.auditOf(`user:${user.id}`)).toHaveLength(1);
    });

    it('when an admin disables themselves, then 400 and they stay enabled', async () => {
      // Act
      const response = await request(api.app)
        .post(at(`/users/${admin.id}/disable`))
        .set(admin.auth);

      // Assert
      expect(response.status).toBe(400);
      expect(body(response).errors?.[0]?.field).toBe('path.id');
      expect((await findUserAccount(api.db.knex, admin.id))?.disabledAt).toBeNull();
    });

    it('when an unknown user is disabled, then 404', async () => {
      // Act
      const response = await request(api.app)
        .post(at('/users/nobody-here/disable'))
        .set(admin.auth);

      // Assert
      expect(response.status).toBe(404);
    });
  });

  describe('credits', () => {
    it('when credits are granted and set, then the balance, the ledger and the audit log follow', async () => {
      // Arrange
      const user = await api.givenUser({ credits: 5 });

      // Act
      const granted = await request(api.app)
        .post(at(`/users/${user.id}/credits/grant`))
        .set(admin.auth)
        .set('X-Request-Id', 'grant-1')
        .send({ amount: 10, reason: 'invoice 42' });
      const set = await request(api.app)
        .post(at(`/users/${user.id}/credits/set`))
        .set(admin.auth)
        .send({ balance: 3 });
      const history = await request(api.app)
        .get(at(`/users/${user.id}/credits`))
        .set(admin.auth);

      // Assert
      expect(body(granted).data).toMatchObject({
        userId: user.id,
        balance: 15,
        movement: {
          kind: 'grant',
          amount: 10,
          balanceAfter: 15,
          reason: 'invoice 42',
          actor: admin.id,
          requestId: 'grant-1',
        },
      });
      expect(body(set).data).toMatchObject({ balance: 3, movement: { kind: 'set', amount: -12 } });
      expect(body(history).data).toMatchObject({
        userId: user.id,
        balance: 3,
        pagination: { total: 3 },
      });
      expect(body(history).data.movements?.map((m) => [m.kind, m.amount, m.balanceAfter])).toEqual([
        ['set', -12, 3],
        ['grant', 10, 15],
        ['initial', 5, 5],
      ]);
      expect(
        (await api.auditOf(`user:${user.id}`)).map((entry) => [entry.action, entry.changes]),
      ).toEqual([
        ['credits.set', { amount: -12, balanceAfter: 3 }],
        ['credits.grant', { amount: 10, balanceAfter: 15, reason: 'invoice 42' }],
      ]);
    });

    it.each([
      ['grant', { amount: 0 }, 'body.amount'],
      ['grant', { amount: 1.5 }, 'body.amount'],
      ['grant', {}, 'body.amount'],
      ['set', { balance: -1 }, 'body.balance'],
      ['grant', { amount: 1_000_000_001 }, 'body.amount'],
      ['set', { balance: 1_000_000_000_001 }, 'body.balance'],
    ])('when a %s has a bad amount, then 400 and the balance stays', async (kind, sent, field) => {
      // Arrange
      const user = await api.givenUser({ credits: 2 });

      // Act
      const response = await request(api.app)
        .post(at(`/users/${user.id}/credits/${kind}`))
        .set(admin.auth)
        .send(sent);

      // Assert
      expect(response.status).toBe(400);
      expect(body(response).errors?.[0]?.field).toBe(field);
      expect((await findUserAccount(api.db.knex, user.id))?.credits).toBe(2);
    });

    it('when a grant would take a balance past the largest the schema allows, then 400 naming the amount and nothing changes', async () => {
      // Arrange: a user whose grants added up to the most a balance can hold.
      const { id } = await api.givenUser({ credits: Number.MAX_SAFE_INTEGER });

      // Act
      const response = await request(api.app)
        .post(at(`/users/${id}/credits/grant`))
        .set(admin.auth)
        .send({ amount: 1 });

      // Assert
      expect(response.status).toBe(400);
      expect(body(response)).toMatchObject({
        statusCode: 400,
        type: 'Validation Error',
        errors: [{ field: 'body.amount', error: expect.stringMatching(/balance/) as unknown }],
      });
      expect((await findUserAccount(api.db.knex, id))?.credits).toBe(Number.MAX_SAFE_INTEGER);
      const { movements } = await listCreditMovements(api.db.knex, id, {
        offset: 0,
        limit: 10,
        order: 'desc',
      });
      expect(movements.map((movement) => movement.kind)).toEqual(['initial']);
      expect(
        (await api.auditOf(`user:${id}`)).filter((entry) => entry.action === 'credits.grant'),
      ).toEqual([]);
    });

    it('when credits go to an unknown user, then 404 and nothing is recorded', async () => {
      // Act
      const response = await request(api.app)
        .post(at('/users/nobody-here/credits/grant'))
        .set(admin.auth)
        .send({ amount: 1 });

      // Assert
      expect(response.status).toBe(404);
      expect(await api.auditOf('user:nobody-here')).toEqual([]);
    });
  });

  describe('tokens', () => {
    it("when an admin mints a token for a user, then it is the user's and short-lived", async () => {
      // Arrange
      const other = await api.givenUser({ role: 'admin' });

      // Act
      const minted = await request(api.app)
        .post(at(`/users/${other.id}/tokens`))
        .set(admin.auth)
        .send({ expiresInSeconds: 120 });
      const { accessToken } = body(minted).data as { accessToken: string };
      const used = await request(api.app)
        .get(at(`/users/${other.id}`))
        .set('Authorization', `Bearer ${accessToken}`);

      // Assert
      expect(minted.status).toBe(201);
      expect(body(minted).data).toMatchObject({
        tokenType: 'Bearer',
        expiresIn: 120,
        userId: other.id,
      });
      expect(used.status).toBe(200);
      const [entry] = await api.auditOf(`user:${other.id}`);
      expect(entry).toMatchObject({ action: 'token.mint', actorId: admin.id });
      expect(JSON.stringify(entry)).not.toContain(accessToken);
    });

    it('when a token is asked for a disabled user, or for too long, then 400', async () => {
      // Arrange
      const user = await api.givenUser();
      await request(api.app)
        .post(at(`/users/${user.id}/disable`))
        .set(admin.auth);

      // Act
      const disabled = await request(api.app)
        .post(at(`/users/${user.id}/tokens`))
        .set(admin.auth);
      const tooLong = await request(api.app)
        .post(at(`/users/${admin.id}/tokens`))
        .set(admin.auth)
        .send({ expiresInSeconds: 31 * 24 * 3600 });

      // Assert
      expect(disabled.status).toBe(400);
      expect(tooLong.status).toBe(400);
    });
  });

  describe('API keys', () => {
    it("when an admin creates a user's key, then the key works for that user, is listed and audited without its secret", async () => {
      // Arrange
      const other = await api.givenUser({ role: 'admin' });

      // Act
      const created = await request(api.app)
        .post(at(`/users/${other.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'import job' });
      const { id, key } = body(created).data as { id: string; key: string };
      const used = await request(api.app).get(at('/plans')).set('Authorization', `Bearer ${key}`);
      const listed = await request(api.app)
        .get(at(`/users/${other.id}/api-keys`))
        .set(admin.auth);

      // Assert
      expect(created.status).toBe(201);
      expect(used.status).toBe(200);
      expect((body(listed).data as { apiKeys: { id: string }[] }).apiKeys.map((k) => k.id)).toEqual(
        [id],
      );
      const entries = await api.auditOf(`api-key:${id}`);
      expect(entries).toEqual([
        expect.objectContaining({
          action: 'api-key.create',
          actorId: admin.id,
          changes: {
            userId: other.id,
            name: 'import job',
            expiresAt: null,
            scopes: ['read', 'certify', 'track', 'keys', 'webhooks', 'admin'],
          },
        }),
      ]);
      expect(JSON.stringify(entries)).not.toContain(key);
    });

    it("when an admin creates a user's key with scopes, then it shows them, and without the admin scope it cannot use the admin API", async () => {
      // Arrange
      const other = await api.givenUser({ role: 'admin' });

      // Act
      const created = await request(api.app)
        .post(at(`/users/${other.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'reader', scopes: ['read', 'keys'] });
      const { key } = body(created).data as { key: string };
      const listed = await request(api.app)
        .get(at(`/users/${other.id}/api-keys`))
        .set(admin.auth);
      const used = await request(api.app).get(at('/plans')).set('Authorization', `Bearer ${key}`);

      // Assert
      expect(created.status).toBe(201);
      expect(body(created).data).toMatchObject({ scopes: ['read', 'keys'], parentKeyId: null });
      expect(body(listed).data).toMatchObject({ apiKeys: [{ scopes: ['read', 'keys'] }] });
      expect(used.status).toBe(403);
      expect(body(used)).toMatchObject({
        type: 'Forbidden Error',
        errors: [
          {
            field: 'scope',
            error: 'This operation requires the scope "admin"; the credential has "read keys"',
          },
        ],
      });
    });

    it("when an admin's admin-only key makes a token and a key for its own account, then they hold its scopes only and stop working with it; wider scopes are refused", async () => {
      // Arrange: an administrator whose automation holds a key with the admin scope alone.
      const owner = await api.givenUser({ role: 'admin' });
      const made = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'automation', scopes: ['admin'] });
      const { id: keyId, key } = body(made).data as { id: string; key: string };
      const asKey = { Authorization: `Bearer ${key}` };

      // Act
      const minted = await request(api.app)
        .post(at(`/users/${owner.id}/tokens`))
        .set(asKey)
        .send({});
      const child = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(asKey)
        .send({ name: 'child' });
      const wider = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(asKey)
        .send({ name: 'wider', scopes: ['read', 'certify', 'admin'] });
      const widened = await request(api.app)
        .patch(at(`/users/${owner.id}/api-keys/${keyId}`))
        .set(asKey)
        .send({ scopes: ['read', 'certify', 'admin'] });
      const token = (body(minted).data as { accessToken: string }).accessToken;
      const childKey = (body(child).data as { key: string }).key;
      const claims = JSON.parse(
        Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
      ) as { scope?: string; client_id?: string };
      const beforeRevocation = await Promise.all(
        [token, childKey].map((credential) =>
          request(api.app).get(at('/plans')).set('Authorization', `Bearer ${credential}`),
        ),
      );
      await request(api.app)
        .delete(at(`/users/${owner.id}/api-keys/${keyId}`))
        .set(admin.auth);
      const afterRevocation = await Promise.all(
        [token, childKey].map((credential) =>
          request(api.app).get(at('/plans')).set('Authorization', `Bearer ${credential}`),
        ),
      );

      // Assert
      expect(minted.status).toBe(201);
      expect(claims).toMatchObject({ scope: 'admin', client_id: keyId });
      expect(child.status).toBe(201);
      expect(body(child).data).toMatchObject({ scopes: ['admin'], parentKeyId: keyId });
      expect([wider.status, widened.status]).toEqual([403, 403]);
      expect(body(wider).errors).toEqual([
        {
          field: 'body.scopes',
          error: 'A key cannot have scopes the credential making it lacks: read, certify',
        },
      ]);
      expect(beforeRevocation.map((response) => response.status)).toEqual([200, 200]);
      expect(afterRevocation.map((response) => response.status)).toEqual([401, 401]);
    });

    it('when an admin-only key makes another administrator and mints through it a token for its own account, then every token in the chain holds its scopes only and stops working with it', async () => {
      // Arrange: an administrator's key with the admin scope alone, for an hour.
      const owner = await api.givenUser({ role: 'admin' });
      const keyExpiry = new Date(Date.now() + 3_600_000);
      const made = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'automation', scopes: ['admin'], expiresAt: keyExpiry.toISOString() });
      const { id: keyId, key } = body(made).data as { id: string; key: string };
      const shadowId = `shadow-${randomUUID()}`;
      const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });
      const claimsOf = (token: string) =>
        JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
          scope?: string;
          client_id?: string;
          exp: number;
        };

      // Act: the key makes a new administrator, a month's token for it, and with that token a
      // month's token for the key's own account.
      const shadow = await request(api.app)
        .post(at('/users'))
        .set(bearer(key))
        .send(newUserBody({ id: shadowId, role: 'admin' }));
      const forShadow = await request(api.app)
        .post(at(`/users/${shadowId}/tokens`))
        .set(bearer(key))
        .send({ expiresInSeconds: 2_592_000 });
      const shadowToken = (body(forShadow).data as { accessToken: string }).accessToken;
      const forOwner = await request(api.app)
        .post(at(`/users/${owner.id}/tokens`))
        .set(bearer(shadowToken))
        .send({ expiresInSeconds: 2_592_000 });
      const ownerToken = (body(forOwner).data as { accessToken: string }).accessToken;
      const beforeRevocation = await Promise.all(
        [shadowToken, ownerToken].map((token) =>
          request(api.app).get(at('/plans')).set(bearer(token)),
        ),
      );
      await request(api.app)
        .delete(at(`/users/${owner.id}/api-keys/${keyId}`))
        .set(admin.auth);
      const afterRevocation = await Promise.all(
        [shadowToken, ownerToken].map((token) =>
          request(api.app).get(at('/plans')).set(bearer(token)),
        ),
      );

      // Assert
      expect([shadow.status, forShadow.status, forOwner.status]).toEqual([201, 201, 201]);
      for (const token of [shadowToken, ownerToken]) {
        const claims = claimsOf(token);
        expect(claims).toMatchObject({ scope: 'admin', client_id: keyId });
        expect(claims.exp * 1_000).toBeLessThanOrEqual(keyExpiry.getTime());
      }
      expect(beforeRevocation.map((response) => response.status)).toEqual([200, 200]);
      expect(afterRevocation.map((response) => response.status)).toEqual([401, 401]);
    });

    it("when an admin's key holding every scope and no expiry makes a customer's key and token, then they are the customer's own and outlive the key's rotation", async () => {
      // Arrange: the operator's full key, as `trustpoint init-admin` prints one.
      const owner = await api.givenUser({ role: 'admin' });
      const customer = await api.givenUser();
      const made = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'operator' });
      const { id: keyId, key } = body(made).data as { id: string; key: string };
      const asKey = { Authorization: `Bearer ${key}` };

      // Act: it provisions the customer, then the operator rotates it (revokes it).
      const forCustomer = await request(api.app)
        .post(at(`/users/${customer.id}/api-keys`))
        .set(asKey)
        .send({ name: 'integration' });
      const minted = await request(api.app)
        .post(at(`/users/${customer.id}/tokens`))
        .set(asKey)
        .send({});
      const customerKey = (body(forCustomer).data as { key: string }).key;
      const token = (body(minted).data as { accessToken: string }).accessToken;
      await request(api.app)
        .delete(at(`/users/${owner.id}/api-keys/${keyId}`))
        .set(admin.auth);
      const afterRotation = await Promise.all(
        [customerKey, token].map((credential) =>
          request(api.app).get(at('/plans')).set('Authorization', `Bearer ${credential}`),
        ),
      );
      const operatorAfter = await request(api.app).get(at('/plans')).set(asKey);

      // Assert: the customer's credentials do not answer to the admin API (no admin role), but
      // they are not revoked: 403, not 401.
      expect([forCustomer.status, minted.status]).toEqual([201, 201]);
      expect(body(forCustomer).data).toMatchObject({ parentKeyId: null });
      expect(afterRotation.map((response) => response.status)).toEqual([403, 403]);
      expect(operatorAfter.status).toBe(401);
    });

    it("when an admin's key makes a key for another user, then it is that key's child: never wider, narrowed with it and revoked with it", async () => {
      // Arrange
      const owner = await api.givenUser({ role: 'admin' });
      const customer = await api.givenUser();
      const keyExpiry = new Date(Date.now() + 3_600_000);
      const made = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(admin.auth)
        .send({
          name: 'provisioning',
          scopes: ['read', 'certify', 'admin'],
          expiresAt: keyExpiry.toISOString(),
        });
      const { id: keyId, key } = body(made).data as { id: string; key: string };
      const asKey = { Authorization: `Bearer ${key}` };

      // Act
      const wider = await request(api.app)
        .post(at(`/users/${customer.id}/api-keys`))
        .set(asKey)
        .send({ name: 'wider', scopes: ['read', 'certify', 'track'] });
      const forCustomer = await request(api.app)
        .post(at(`/users/${customer.id}/api-keys`))
        .set(asKey)
        .send({ name: 'integration', scopes: ['read', 'certify'] });
      const customerKey = (body(forCustomer).data as { key: string }).key;
      await request(api.app)
        .patch(at(`/users/${owner.id}/api-keys/${keyId}`))
        .set(admin.auth)
        .send({ scopes: ['read', 'admin'] });
      const narrowed = await request(api.app)
        .get(at(`/users/${customer.id}/api-keys`))
        .set(admin.auth);
      const beforeRevocation = await request(api.app)
        .get(at('/plans'))
        .set('Authorization', `Bearer ${customerKey}`);
      await request(api.app)
        .delete(at(`/users/${owner.id}/api-keys/${keyId}`))
        .set(admin.auth);
      const revoked = await request(api.app)
        .get(at(`/users/${customer.id}/api-keys`))
        .set(admin.auth);
      const afterRevocation = await request(api.app)
        .get(at('/plans'))
        .set('Authorization', `Bearer ${customerKey}`);

      // Assert
      expect(wider.status).toBe(403);
      expect(forCustomer.status).toBe(201);
      expect(body(forCustomer).data).toMatchObject({
        scopes: ['read', 'certify'],
        parentKeyId: keyId,
        expiresAt: keyExpiry.toISOString(),
      });
      expect(body(narrowed).data).toMatchObject({
        apiKeys: [{ name: 'integration', scopes: ['read'], revokedAt: null }],
      });
      // A customer's key reaches no admin route (403) until it is revoked (401).
      expect([beforeRevocation.status, afterRevocation.status]).toEqual([403, 401]);
      expect(body(revoked).data).toMatchObject({
        apiKeys: [{ name: 'integration', revokedAt: expect.any(String) as unknown }],
      });
    });

    it("when an admin revokes a user's key, then it is refused at once, and revoking again records nothing", async () => {
      // Arrange
      const other = await api.givenUser({ role: 'admin' });
      const created = await request(api.app)
        .post(at(`/users/${other.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'to revoke' });
      const { id, key } = body(created).data as { id: string; key: string };

      // Act
      const revoked = await request(api.app)
        .delete(at(`/users/${other.id}/api-keys/${id}`))
        .set(admin.auth);
      const again = await request(api.app)
        .delete(at(`/users/${other.id}/api-keys/${id}`))
        .set(admin.auth);
      const used = await request(api.app).get(at('/plans')).set('Authorization', `Bearer ${key}`);

      // Assert
      expect([revoked.status, again.status]).toEqual([200, 200]);
      expect(used.status).toBe(401);
      expect((await api.auditOf(`api-key:${id}`)).map((entry) => entry.action)).toEqual([
        'api-key.revoke',
        'api-key.create',
      ]);
    });

    it('when a user is disabled, then its API keys are refused at once', async () => {
      // Arrange
      const other = await api.givenUser({ role: 'admin' });
      const created = await request(api.app)
        .post(at(`/users/${other.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'until disabled' });
      const { key } = body(created).data as { key: string };
      const before = await request(api.app).get(at('/plans')).set('Authorization', `Bearer ${key}`);

      // Act
      await request(api.app)
        .post(at(`/users/${other.id}/disable`))
        .set(admin.auth);
      const after = await request(api.app).get(at('/plans')).set('Authorization', `Bearer ${key}`);

      // Assert
      expect(before.status).toBe(200);
      expect(after.status).toBe(401);
      expect(body(after).message).toBe('User credentials are wrong');
    });

    it("when the owner of an admin's narrowed key is disabled, then the tokens it minted for others are refused too", async () => {
      // Arrange: an administrator's admin-only key mints a customer a token bound to it.
      const owner = await api.givenUser({ role: 'admin' });
      const customer = await api.givenUser({ role: 'admin' });
      const made = await request(api.app)
        .post(at(`/users/${owner.id}/api-keys`))
        .set(admin.auth)
        .send({ name: 'automation', scopes: ['admin'] });
      const { key } = body(made).data as { key: string };
      const minted = await request(api.app)
        .post(at(`/users/${customer.id}/tokens`))
        .set('Authorization', `Bearer ${key}`)
        .send({});
      const token = (body(minted).data as { accessToken: string }).accessToken;
      const before = await request(api.app)
        .get(at('/plans'))
        .set('Authorization', `Bearer ${token}`);

      // Act
      await request(api.app)
        .post(at(`/users/${owner.id}/disable`))
        .set(admin.auth);
      const after = await request(api.app)
        .get(at('/plans'))
        .set('Authorization', `Bearer ${token}`);

      // Assert
      expect(before.status).toBe(200);
      expect(after.status).toBe(401);
    });

    it('when the user or key is unknown, or the key is malformed, then 404 or 400', async () => {
      // Act
      const noUser = await request(api.app)
        .post(at('/users/nobody-here/api-keys'))
        .set(admin.auth)
        .send({ name: 'x' });
      const noKey = await request(api.app)
        .delete(at(`/users/${admin.id}/api-keys/AAAAAAAAAAAA`))
        .set(admin.auth);
      const badKey = await request(api.app)
        .delete(at(`/users/${admin.id}/api-keys/short`))
        .set(admin.auth);

      // Assert
      expect([noUser.status, noKey.status, badKey.status]).toEqual([404, 404, 400]);
    });
  });

  describe('plans', () => {
    it('when a plan is created, listed, read and updated, then it has the networks given and each change is audited', async () => {
      // Arrange
      const id = `plan-${randomUUID()}`;

      // Act
      const created = await request(api.app)
        .post(at('/plans'))
        .set(admin.auth)
        .send({ id, name: 'Pro', networkIds: ['31337', 11155111] });
      const listed = await request(api.app).get(at('/plans')).set(admin.auth);
      const updated = await request(api.app)
        .put(at(`/plans/${id}`))
        .set(admin.auth)
        .send({ networkIds: ['11155111'] });
      const read = await request(api.app)
        .get(at(`/plans/${id}`))
        .set(admin.auth);

      // Assert
      expect(created.status).toBe(201);
      expect(body(created).data).toEqual({ id, name: 'Pro', networkIds: ['11155111', '31337'] });
      expect((body(listed).data as { plans: { id: string }[] }).plans.map((p) => p.id)).toContain(
        id,
      );
      expect(body(updated).data).toEqual({ id, name: 'Pro', networkIds: ['11155111'] });
      expect(body(read).data).toEqual(body(updated).data);
      expect(
        (await api.auditOf(`plan:${id}`)).map((entry) => [entry.action, entry.changes]),
      ).toEqual([
        ['plan.update', { networkIds: { before: ['11155111', '31337'], after: ['11155111'] } }],
        ['plan.create', { name: 'Pro', networkIds: ['11155111', '31337'] }],
      ]);
    });

    it("when a user's plan gains a network, then the user is read with it at once", async () => {
      // Arrange
      const user = await api.givenUser();

      // Act
      await request(api.app)
        .put(at(`/plans/${user.planId}`))
        .set(admin.auth)
        .send({ networkIds: ['31337', '11155111'] });

      // Assert
      const shown = await request(api.app)
        .get(at(`/users/${user.id}`))
        .set(admin.auth);
      expect(body(shown).data.networkIds).toEqual(['11155111', '31337']);
    });

    it('when a plan names a network the service has not configured, then 400 and no plan', async () => {
      // Arrange
      const id = `plan-${randomUUID()}`;

      // Act
      const response = await request(api.app)
        .post(at('/plans'))
        .set(admin.auth)
        .send({ id, name: 'Bad', networkIds: ['31337', '999'] });

      // Assert
      expect(response.status).toBe(400);
      expect(body(response).errors?.[0]?.field).toBe('body.networkIds');
      const read = await request(api.app)
        .get(at(`/plans/${id}`))
        .set(admin.auth);
      expect(read.status).toBe(404);
    });

    it.each(['..', '.', 'a/b', 'a%2fb'])(
      'when a plan id is %s, which no client can put in /plans/{id}, then 400 on body.id and no plan',
      async (id) => {
        // Act
        const response = await request(api.app)
          .post(at('/plans'))
          .set(admin.auth)
          .send({ id, name: 'Unreachable', networkIds: ['31337'] });

        // Assert
        expect(response.status).toBe(400);
        expect(body(response).errors?.map((error) => error.field)).toEqual(['body.id']);
        expect(await api.auditOf(`plan:${id}`)).toEqual([]);
      },
    );

    it('when a plan id is taken, then 409; an unknown plan to update is a 404', async () => {
      // Arrange
      const id = `plan-${randomUUID()}`;
      await request(api.app)
        .post(at('/plans'))
        .set(admin.auth)
        .send({ id, name: 'A', networkIds: [] });

      // Act
      const again = await request(api.app)
        .post(at('/plans'))
        .set(admin.auth)
        .send({ id, name: 'B', networkIds: ['31337'] });
      const unknown = await request(api.app)
        .put(at('/plans/no-such-plan'))
        .set(admin.auth)
        .send({ networkIds: [] });

      // Assert
      expect(again.status).toBe(409);
      expect(unknown.status).toBe(404);
      const read = await request(api.app)
        .get(at(`/plans/${id}`))
        .set(admin.auth);
      expect(body(read).data).toEqual({ id, name: 'A', networkIds: [] });
    });
  });

  describe('audit log', () => {
    it('when the log is read with filters, then only matching entries come, newest first, a page at a time', async () => {
      // Arrange
      const actor = await api.givenUser({ role: 'admin' });
      const first = newUserBody();
      const second = newUserBody();
      await request(api.app)
        .post(at('/users'))
        .set(actor.auth)
        .set('X-Request-Id', 'r-1')
        .send(first);
      await request(api.app)
        .post(at('/users'))
        .set(actor.auth)
        .set('X-Request-Id', 'r-2')
        .send(second);
      await request(api.app)
        .post(at(`/users/${first.id}/credits/grant`))
        .set(actor.auth)
        .send({ amount: 1 });

      // Act
      const byActor = await request(api.app)
        .get(at(`/audit?actor=${actor.id}`))
        .set(admin.auth);
      const creations = await request(api.app)
        .get(at(`/audit?actor=${actor.id}&action=user.create&limit=1&offset=1`))
        .set(admin.auth);
      const byTarget = await request(api.app)
        .get(at(`/audit?target=${encodeURIComponent(`user:${first.id}`)}`))
        .set(admin.auth);
      const future = await request(api.app)
        .get(at(`/audit?actor=${actor.id}&since=${new Date(Date.now() + 60_000).toISOString()}`))
        .set(admin.auth);
      const bad = await request(api.app).get(at('/audit?since=yesterday')).set(admin.auth);

      // Assert
      expect(body(byActor).data.entries?.map((e) => e.action)).toEqual([
        'credits.grant',
        'user.create',
        'user.create',
      ]);
      expect(body(creations).data.entries?.map((e) => [e.target, e.requestId])).toEqual([
        [`user:${first.id}`, 'r-1'],
      ]);
      expect(body(creations).data.pagination?.total).toBe(2);
      expect(body(byTarget).data.entries?.map((e) => e.action)).toEqual([
        'credits.grant',
        'user.create',
      ]);
      expect(body(future).data.entries).toEqual([]);
      expect(bad.status).toBe(400);
    });
  });

  describe('documents', () => {
    it('when the OpenAPI document is asked for without a token, then it is served', async () => {
      // Act
      const response = await request(api.app).get(at('/openapi.json'));

      // Assert
      expect(response.status).toBe(200);
      expect((response.body as { servers: { url: string }[] }).servers).toEqual([
        { url: ADMIN_API_BASE_PATH },
      ]);
    });
  });

  it('when a minted token is used after its user is disabled, then it is refused', async () => {
    // Arrange
    const user = await api.givenUser({ role: 'admin' });
    const token = await mintAccessToken(api.secret, { subject: user.id, ttlSeconds: 60 });
    await request(api.app)
      .post(at(`/users/${user.id}/disable`))
      .set(admin.auth);

    // Act
    const response = await request(api.app)
      .get(at('/plans'))
      .set('Authorization', `Bearer ${token}`);

    // Assert
    expect(response.status).toBe(401);
  });
});
