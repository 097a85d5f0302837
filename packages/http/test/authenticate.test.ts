import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { AccessTokens } from '../src/access-tokens.js';
import { authenticate } from '../src/authenticate.js';
import { currentUser } from '../src/current-user.js';
import { sendSuccess } from '../src/send-success.js';
import type { User } from '@trustpoint/db';

import { fakeAuthOptions, testUser } from './support/fake-users.js';
import { signToken, tokenWithoutExpiry, unsignedToken } from './support/tokens.js';
import { testApp } from './support/test-app.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../src/token-settings.js';

const alice = testUser('alice');

function protectedApp() {
  return testApp((app) => {
    app.get('/me', authenticate(fakeAuthOptions([alice])), (_req, res) => {
      sendSuccess(res, 200, 'Current user', { id: currentUser(res).id });
    });
  });
}

function authenticationError(message: string) {
  return { statusCode: 401, type: 'Authentication Error', message };
}

describe('authenticate', () => {
  describe('when the token is missing', () => {
    it.each([
      ['there is no Authorization header', undefined, undefined],
      ['the Authorization header is empty', '', undefined],
      ['the scheme is not Bearer', 'Basic x', 'The Basic scheme is not accepted'],
      ['Bearer has no token', 'Bearer ', 'Bearer needs a token after it'],
      ['the token has no scheme', signToken('alice'), 'The Bearer scheme is missing'],
      [
        'Bearer has more than one token',
        signToken('alice').then((token) => `Bearer ${token} extra`),
        'Bearer takes one token, without spaces',
      ],
    ])(
      'when %s, then 401 "Token is not provided", saying how to send one',
      async (_case, header, hint) => {
        // Arrange
        const call = request(protectedApp()).get('/me');
        if (header !== undefined) void call.set('Authorization', await header);

        // Act
        const response = await call;

        // Assert
        expect(response.status).toBe(401);
        expect(response.body).toEqual({
          ...authenticationError('Token is not provided'),
          ...(hint === undefined
            ? {}
            : {
                errors: [
                  {
                    field: 'Authorization',
                    error: `${hint}: send "Authorization: Bearer <token>"`,
                  },
                ],
              }),
        });
        expect(response.headers['www-authenticate']).toBe('Bearer');
      },
    );
  });

  describe('when the token is not acceptable', () => {
    it.each([
      ['it is not a JWT', 'not-a-jwt'],
      [
        'it is signed with another secret',
        signToken('alice', {}, 'another-secret-of-32-characters-long!'),
      ],
      ['its algorithm is none', unsignedToken('alice')],
      ['its algorithm is not HS256', signToken('alice', { algorithm: 'HS512' })],
      ['its audience is another one', signToken('alice', { audience: 'another-api' })],
      ['its issuer is another one', signToken('alice', { issuer: 'someone-else' })],
      ['it has no expiry', tokenWithoutExpiry('alice')],
    ])('when %s, then 401 "Token is invalid"', async (_case, token) => {
      // Arrange
      const app = protectedApp();

      // Act
      const response = await request(app)
        .get('/me')
        .set('Authorization', `Bearer ${await token}`);

      // Assert
      expect(response.status).toBe(401);
      expect(response.body).toEqual(authenticationError('Token is invalid'));
    });
  });

  it('when the token has expired, then 401 "Token is expired"', async () => {
    // Arrange
    const token = await signToken('alice', { expiresIn: -60 });

    // Act
    const response = await request(protectedApp())
      .get('/me')
      .set('Authorization', `Bearer ${token}`);

    // Assert
    expect(response.status).toBe(401);
    expect(response.body).toEqual(authenticationError('Token is expired'));
  });

  it('when a valid token names no known user, then 401 "User credentials are wrong"', async () => {
    // Arrange
    const token = await signToken('mallory');

    // Act
    const response = await request(protectedApp())
      .get('/me')
      .set('Authorization', `Bearer ${token}`);

    // Assert
    expect(response.status).toBe(401);
    expect(response.body).toEqual(authenticationError('User credentials are wrong'));
  });

  it('when the token is valid, then the route sees the user', async () => {
    // Arrange
    const token = await signToken('alice');

    // Act
    const response = await request(protectedApp())
      .get('/me')
      .set('Authorization', `bearer ${token}`);

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      statusCode: 200,
      message: 'Current user',
      data: { id: 'alice' },
    });
  });

  describe('when a token was accepted once (verified tokens are remembered)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const me = (app: ReturnType<typeof protectedApp>, token: string) =>
      request(app).get('/me').set('Authorization', `Bearer ${token}`);

    it('when its expiry then passes, then the next request gets 401 "Token is expired"', async () => {
      // Arrange: only Date is faked (jose and the cache read Date.now); sockets keep real timers.
      vi.useFakeTimers({ toFake: ['Date'] });
      const token = await signToken('alice', { expiresIn: 60 });
      const app = protectedApp();
      const accepted = await me(app, token);
      vi.setSystemTime(Date.now() + 30_000);
      const stillValid = await me(app, token);

      // Act
      vi.setSystemTime(Date.now() + 31_000);
      const response = await me(app, token);

      // Assert
      expect(accepted.status).toBe(200);
      expect(stillValid.status).toBe(200);
      expect(response.status).toBe(401);
      expect(response.body).toEqual(authenticationError('Token is expired'));
    });

    it('when a token differs from it by one character of its signature, then 401 "Token is invalid"', async () => {
      // Arrange
      const token = await signToken('alice');
      const app = protectedApp();
      const accepted = await me(app, token);
      // A character in the middle of the signature: every one of its bits is significant.
      const signatureStart = token.lastIndexOf('.') + 1;
      const at = signatureStart + 10;
      const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;

      // Act
      const response = await me(app, tampered);

      // Assert
      expect(accepted.status).toBe(200);
      expect(tampered).not.toBe(token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual(authenticationError('Token is invalid'));
    });

    it('when its user is then deleted, then the next request gets 401 "User credentials are wrong"', async () => {
      // Arrange
      const users = new Map<string, User>([['alice', alice]]);
      const app = testApp((app) => {
        app.get(
          '/me',
          authenticate({
            ...fakeAuthOptions([]),
            findUser: (id) => Promise.resolve(users.get(id)),
          }),
          (_req, res) => {
            sendSuccess(res, 200, 'Current user', { id: currentUser(res).id });
          },
        );
      });
      const token = await signToken('alice');
      const accepted = await me(app, token);
      users.delete('alice');

      // Act
      const response = await me(app, token);

      // Assert
      expect(accepted.status).toBe(200);
      expect(response.status).toBe(401);
      expect(response.body).toEqual(authenticationError('User credentials are wrong'));
    });
  });

  it('when the secret is empty, then it refuses to start', () => {
    // Act
    const create = () =>
      new AccessTokens({ secret: '', issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE });

    // Assert
    expect(create).toThrow(/non-empty token secret/);
  });
});

describe('currentUser', () => {
  it('when the route is not behind authenticate, then the request fails with the generic 500', async () => {
    // Arrange
    const app = testApp((app) => {
      app.get('/me', (_req, res) => {
        sendSuccess(res, 200, 'Current user', currentUser(res));
      });
    });

    // Act
    const response = await request(app).get('/me');

    // Assert
    expect(response.status).toBe(500);
  });
});
