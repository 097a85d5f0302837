import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiApp } from '../src/api-app.js';
import { authenticate } from '../src/authenticate.js';
import { currentUser } from '../src/current-user.js';
import { capturedLogger } from './support/captured-logger.js';
import { fakeAuthOptions, testAccessTokens, testUser } from './support/fake-users.js';
import { signToken } from './support/tokens.js';

const document = { openapi: '3.1.0', info: { title: 'Test API', version: '1.0.0' }, paths: {} };

/**
 * An API logging into `logger`, with a route that fails and one that says whether the request
 * logger handled its request: below info, writing nothing is not enough, the middleware (and its
 * per-request serialization) must be absent altogether.
 */
function apiApp(logger: ReturnType<typeof capturedLogger>['logger']) {
  const router = express.Router();
  router.get('/ping', (req, res) => res.status(200).json({ requestLogger: 'log' in req }));
  router.get('/broken', () => {
    throw new Error('boom');
  });
  return createApiApp({
    basePath: '/api/v1',
    docs: { document },
    routers: [router],
    logger,
    tokens: testAccessTokens(),
  });
}

const isRequestLine = (entry: Record<string, unknown>) => entry.msg === 'request completed';

describe('createApiApp request logging', () => {
  it('when the logger is at info, then a request writes one request line', async () => {
    // Arrange
    const captured = capturedLogger('info');
    const app = apiApp(captured.logger);

    // Act
    const response = await request(app).get('/api/v1/ping');

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ requestLogger: true });
    expect(captured.entries().filter(isRequestLine)).toHaveLength(1);
    expect(captured.entries()[0]).toMatchObject({
      req: { method: 'GET', url: '/api/v1/ping' },
      res: { statusCode: 200 },
    });
  });

  it('when the logger is at warn, then no request logger runs and a request writes nothing', async () => {
    // Arrange
    const captured = capturedLogger('warn');
    const app = apiApp(captured.logger);

    // Act
    const response = await request(app).get('/api/v1/ping');

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ requestLogger: false });
    expect(captured.lines).toEqual([]);
  });

  it('when the logger is at warn and a request fails, then only the error is written, no request line', async () => {
    // Arrange
    const captured = capturedLogger('warn');
    const app = apiApp(captured.logger);

    // Act
    const response = await request(app).get('/api/v1/broken');

    // Assert
    expect(response.status).toBe(500);
    expect(captured.entries()).toHaveLength(1);
    expect(captured.entries().filter(isRequestLine)).toEqual([]);
    expect(captured.entries()[0]).toMatchObject({ level: 50 });
  });
});

describe('createApiApp OPTIONS', () => {
  it("when OPTIONS is sent to an operation's path and it is no CORS preflight, then the spec's 404 as for any method the API has not, not Express's list of methods", async () => {
    // Arrange
    const app = apiApp(capturedLogger('warn').logger);

    // Act
    const [options, put] = await Promise.all([
      request(app).options('/api/v1/ping'),
      request(app).put('/api/v1/ping'),
    ]);

    // Assert
    for (const response of [options, put]) {
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toMatchObject({ statusCode: 404, type: 'Not Found Error' });
    }
    expect(options.headers.allow).toBeUndefined();
  });
});

describe('createApiApp rate limit', () => {
  const LIMIT = 2;

  /** An API whose routes authenticate themselves, behind the app's limit of LIMIT per minute. */
  function limitedApi() {
    const auth = fakeAuthOptions([testUser('alice'), testUser('bob')]);
    const router = express.Router();
    router.get('/me', authenticate(auth), (_req, res) => {
      res.status(200).json({ id: currentUser(res).id });
    });
    return createApiApp({
      basePath: '/api/v1',
      docs: { document },
      routers: [router],
      logger: capturedLogger('warn').logger,
      requestsPerMinute: LIMIT,
      tokens: auth.tokens,
    });
  }

  const me = (app: ReturnType<typeof limitedApi>, token: string) =>
    request(app).get('/api/v1/me').set('Authorization', `Bearer ${token}`);

  it('when a user exceeds the limit, then that user gets 429 and another user from the same address does not', async () => {
    // Arrange
    const app = limitedApi();
    for (let i = 0; i < LIMIT; i += 1)
      expect((await me(app, await signToken('alice'))).status).toBe(200);

    // Act
    const alice = await me(app, await signToken('alice'));
    const bob = await me(app, await signToken('bob'));

    // Assert
    expect(alice.status).toBe(429);
    expect(bob.status).toBe(200);
  });

  it('when tokens are invalid, then they count against the address, not against the user they name', async () => {
    // Arrange: forged tokens naming alice, signed with another key.
    const app = limitedApi();
    const forged = await signToken('alice', {}, 'another-secret-with-at-least-32-characters');
    for (let i = 0; i < LIMIT; i += 1) expect((await me(app, forged)).status).toBe(401);

    // Act
    const moreForged = await me(app, forged);
    const realAlice = await me(app, await signToken('alice'));

    // Assert
    expect(moreForged.status).toBe(429);
    expect(realAlice.status).toBe(200);
  });
});
