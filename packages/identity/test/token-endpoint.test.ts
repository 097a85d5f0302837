import { createApiApp } from '@trustpoint/http';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKey, revokeApiKey } from '../src/index.js';
import { authenticationError, BASE, newUser, testApi } from './support/identity-app.js';

const TOKEN_PATH = `${BASE}/oauth/token`;

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
}

describe.each(testBackends())('the client-credentials token endpoint on %s', (backend) => {
  let db: TestDatabase;
  let app: ReturnType<typeof createApiApp>;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    app = testApi(db.knex);
  });
  afterAll(async () => {
    await db.close();
  });

  const keyOfNewUser = async (expiresAt?: Date) => {
    const user = await newUser(db.knex);
    const { apiKey, key } = await createApiKey(db.knex, { userId: user.id, name: 'k', expiresAt });
    return { userId: user.id, id: apiKey.id, key };
  };
  const me = (token: string) =>
    request(app).get(`${BASE}/me`).set('Authorization', `Bearer ${token}`);

  it('when a client authenticates with HTTP Basic, then it gets a 15-minute bearer token the API accepts', async () => {
    // Arrange
    const { userId, id, key } = await keyOfNewUser();

    // Act
    const response = await request(app)
      .post(TOKEN_PATH)
      .set('Authorization', basic(id, key))
      .type('form')
      .send({ grant_type: 'client_credentials' });

    // Assert
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const answer = response.body as TokenAnswer;
    expect(answer).toEqual({
      access_token: expect.any(String) as string,
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'read certify track keys webhooks admin',
    });
    expect(decodeJwt(answer.access_token)).toMatchObject({
      sub: userId,
      client_id: id,
      scope: 'read certify track keys webhooks admin',
    });
    const call = await me(answer.access_token);
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ data: { id: userId } });
  });

  it('when a client sends its credentials in the form, then it gets a token too', async () => {
    // Arrange
    const { id, key } = await keyOfNewUser();

    // Act
    const response = await request(app)
      .post(TOKEN_PATH)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: id, client_secret: key, scope: 'read' });

    // Assert
    expect(response.status).toBe(200);
    expect((response.body as { scope: string }).scope).toBe('read');
    expect((await me((response.body as TokenAnswer).access_token)).status).toBe(200);
  });

  it('when a parameter is sent twice (scope=read&scope=track), then 400 invalid_request and no token, not every scope of the key', async () => {
    // Arrange
    const { id, key } = await keyOfNewUser();

    // Act
    const twice = await request(app)
      .post(TOKEN_PATH)
      .set('Authorization', basic(id, key))
      .type('form')
      .send('grant_type=client_credentials&scope=read&scope=track');
    const grantTwice = await request(app)
      .post(TOKEN_PATH)
      .set('Authorization', basic(id, key))
      .type('form')
      .send('grant_type=client_credentials&grant_type=client_credentials&scope=read');

    // Assert
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({
      error: 'invalid_request',
      error_description: 'scope: Send it once (RFC 6749 3.1)',
    });
    expect(grantTwice.status).toBe(400);
    expect((grantTwice.body as { error: string }).error).toBe('invalid_request');
  });

  it('when the key is revoked, then tokens already issued for it are 401 "Token is invalid" at once', async () => {
    // Arrange
    const { userId, id, key } = await keyOfNewUser();
    const issued = await request(app)
      .post(TOKEN_PATH)
      .set('Authorization', basic(id, key))
      .type('form')
      .send({ grant_type: 'client_credentials' });
    const token = (issued.body as TokenAnswer).access_token;
    expect((await me(token)).status).toBe(200);

    // Act
    await revokeApiKey(db.knex, { userId, id });
    const after = await me(token);
    const again = await request(app)
      .post(TOKEN_PATH)
      .set('Authorization', basic(id, key))
      .type('form')
      .send({ grant_type: 'client_credentials' });

    // Assert
    expect(after.status).toBe(401);
    expect(after.body).toEqual(authenticationError('Token is invalid'));
    expect(again.status).toBe(401);
    expect(again.body).toEqual({
      error: 'invalid_client',
      error_description: expect.any(String) as string,
    });
  });

  it('when the key expires within the quarter hour, then the token lives only until then', async () => {
    // Arrange
    const { id, key } = await keyOfNewUser(new Date(Date.now() + 120_000));

    // Act
    const response = await request(app)
      .post(TOKEN_PATH)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: id, client_secret: key });

    // Assert
    expect(response.status).toBe(200);
    const { expires_in: expiresIn } = response.body as TokenAnswer;
    expect(expiresIn).toBeGreaterThan(100);
    expect(expiresIn).toBeLessThanOrEqual(120);
  });

  describe('when the request is wrong, then an RFC 6749 5.2 error', () => {
    it.each([
      ['no grant_type', {}, 400, 'invalid_request'],
      ['grant_type password', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
    ])('when it has %s, then %i %s', async (_case, form, status, error) => {
      // Arrange
      const { id, key } = await keyOfNewUser();

      // Act
      const response = await request(app)
        .post(TOKEN_PATH)
        .set('Authorization', basic(id, key))
        .type('form')
        .send(form);

      // Assert
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ error, error_description: expect.any(String) as string });
    });

    it('when the form is over 4 KiB, then 413 saying the size of a body, not of a JSON one', async () => {
      // Act
      const response = await request(app)
        .post(TOKEN_PATH)
        .type('form')
        .send(`grant_type=client_credentials&client_secret=${'x'.repeat(5_000)}`);

      // Assert
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({
        errors: [{ field: 'body', error: 'The body may be at most 4096 bytes' }],
      });
    });

    it('when the body is JSON, then 400 invalid_request', async () => {
      // Arrange
      const { id, key } = await keyOfNewUser();

      // Act
      const response = await request(app)
        .post(TOKEN_PATH)
        .send({ grant_type: 'client_credentials', client_id: id, client_secret: key });

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'invalid_request' });
    });

    it('when the credentials come both in Basic and in the form, then 400 invalid_request', async () => {
      // Arrange
      const { id, key } = await keyOfNewUser();

      // Act
      const response = await request(app)
        .post(TOKEN_PATH)
        .set('Authorization', basic(id, key))
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: id, client_secret: key });

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'invalid_request' });
    });

    it.each([
      [
        'a wrong key',
        async () => {
          const k = await keyOfNewUser();
          return basic(k.id, `${k.key.slice(0, -8)}AAAAAAAA`);
        },
      ],
      [
        'another key’s id',
        async () => {
          const [a, b] = [await keyOfNewUser(), await keyOfNewUser()];
          return basic(b.id, a.key);
        },
      ],
      [
        'an expired key',
        async () => {
          const k = await keyOfNewUser(new Date(Date.now() + 1));
          await new Promise((r) => setTimeout(r, 5));
          return basic(k.id, k.key);
        },
      ],
      ['a Bearer header', async () => `Bearer ${(await keyOfNewUser()).key}`],
      ['no credentials', () => Promise.resolve(undefined)],
    ])(
      'when the client sends %s, then 401 invalid_client with WWW-Authenticate',
      async (_case, header) => {
        // Arrange
        const authorization = await header();
        const call = request(app).post(TOKEN_PATH).type('form');
        if (authorization !== undefined) void call.set('Authorization', authorization);

        // Act
        const response = await call.send({ grant_type: 'client_credentials' });

        // Assert
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(/^Basic realm="trustpoint"/);
        expect(response.body).toEqual({
          error: 'invalid_client',
          error_description: expect.any(String) as string,
        });
      },
    );
  });

  it('when an address keeps failing, then it is answered 429 while others still get tokens', async () => {
    // Arrange
    const limited = testApi(db.knex, { tokenFailuresPerMinute: 3 });
    const { id, key } = await keyOfNewUser();
    const wrong = () =>
      request(limited)
        .post(`${BASE}/oauth/token`)
        .set('Authorization', basic(id, `${key.slice(0, -8)}AAAAAAAA`))
        .type('form')
        .send({ grant_type: 'client_credentials' });
    for (let i = 0; i < 3; i += 1) expect((await wrong()).status).toBe(401);

    // Act
    const blocked = await wrong();

    // Assert
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("when an address has spent its failures, then a valid client behind it still gets its token and the address's next failure is 429", async () => {
    // Arrange
    const limited = testApi(db.knex, { tokenFailuresPerMinute: 3 });
    const guesser = await keyOfNewUser();
    const valid = await keyOfNewUser();
    const send = (id: string, key: string) =>
      request(limited)
        .post(TOKEN_PATH)
        .set('Authorization', basic(id, key))
        .type('form')
        .send({ grant_type: 'client_credentials' });
    for (let i = 0; i < 3; i += 1) {
      expect((await send(guesser.id, `${guesser.key.slice(0, -8)}AAAAAAAA`)).status).toBe(401);
    }

    // Act
    const granted = await send(valid.id, valid.key);
    const refused = await send(valid.id, `${valid.key.slice(0, -8)}AAAAAAAA`);

    // Assert
    expect(granted.status).toBe(200);
    expect(await me((granted.body as TokenAnswer).access_token)).toHaveProperty('status', 200);
    expect(refused.status).toBe(429);
  });

  it('when one client id keeps failing from many addresses, then its failures are 429 from any address and its valid credential is still granted', async () => {
    // Arrange
    const limited = testApi(db.knex, { tokenFailuresPerMinute: 3, trustProxy: true });
    const target = await keyOfNewUser();
    const other = await keyOfNewUser();
    const send = (address: string, id: string, key: string) =>
      request(limited)
        .post(TOKEN_PATH)
        .set('X-Forwarded-For', address)
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: id, client_secret: key });
    const wrongKey = `${target.key.slice(0, -8)}AAAAAAAA`;
    for (let i = 1; i <= 3; i += 1) {
      expect((await send(`198.51.100.${String(i)}`, target.id, wrongKey)).status).toBe(401);
    }

    // Act
    const fromNewAddress = await send('198.51.100.9', target.id, wrongKey);
    const validTarget = await send('198.51.100.10', target.id, target.key);
    const otherClient = await send('198.51.100.1', other.id, `${other.key.slice(0, -8)}AAAAAAAA`);

    // Assert
    expect(fromNewAddress.status).toBe(429);
    expect(validTarget.status).toBe(200);
    expect(otherClient.status).toBe(401);
  });
});
