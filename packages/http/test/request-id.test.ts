import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiApp } from '../src/api-app.js';
import { requestIdOf } from '../src/request-id.js';
import { capturedLogger } from './support/captured-logger.js';
import { testAccessTokens } from './support/fake-users.js';

const document = { openapi: '3.1.0', info: { title: 'Test API', version: '1.0.0' }, paths: {} };

function echoRouter(name: string) {
  const router = express.Router();
  router.get('/id', (_req, res) => res.json({ api: name, requestId: requestIdOf(res) }));
  return router;
}

function app(logger = capturedLogger('warn').logger) {
  return createApiApp({
    basePath: '/main/v1',
    docs: { document },
    routers: [echoRouter('main')],
    mounts: [{ basePath: '/other/v1', docs: { document }, routers: [echoRouter('other')] }],
    logger,
    tokens: testAccessTokens(),
  });
}

describe('request ids', () => {
  it('when the caller sends a sane X-Request-Id, then the request keeps it and answers with it', async () => {
    // Arrange
    const id = 'client-42.retry:1_a';

    // Act
    const response = await request(app()).get('/main/v1/id').set('X-Request-Id', id);

    // Assert
    expect(response.body).toEqual({ api: 'main', requestId: id });
    expect(response.headers['x-request-id']).toBe(id);
  });

  it.each([
    ['none', undefined],
    ['one with spaces', 'a b'],
    ['one too long', 'x'.repeat(129)],
  ])('when the caller sends %s, then the request gets a new UUID', async (_, sent) => {
    // Arrange
    const call = request(app()).get('/main/v1/id');
    if (sent !== undefined) void call.set('X-Request-Id', sent);

    // Act
    const response = await call;

    // Assert
    const { requestId } = response.body as { requestId: string };
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['x-request-id']).toBe(requestId);
  });

  it('when the request is logged, then its log line carries the same id', async () => {
    // Arrange
    const captured = capturedLogger('info');

    // Act
    await request(app(captured.logger)).get('/main/v1/id').set('X-Request-Id', 'logged-1');

    // Assert
    expect(captured.entries().find((entry) => entry.msg === 'request completed')).toMatchObject({
      req: { id: 'logged-1' },
    });
  });
});

describe('mounted APIs', () => {
  it('when an API is mounted beside the main one, then each serves its routes and docs', async () => {
    // Arrange
    const served = app();

    // Act
    const [main, other, docs, unknown] = await Promise.all([
      request(served).get('/main/v1/id'),
      request(served).get('/other/v1/id'),
      request(served).get('/other/v1/openapi.json'),
      request(served).get('/other/v1/nothing'),
    ]);

    // Assert
    expect(main.body).toMatchObject({ api: 'main' });
    expect(other.body).toMatchObject({ api: 'other' });
    expect(docs.status).toBe(200);
    expect(unknown.status).toBe(404);
  });
});
