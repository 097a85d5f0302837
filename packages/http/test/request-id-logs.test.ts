import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { pino, type Level } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiApp } from '../src/api-app.js';
import { testAccessTokens } from './support/fake-users.js';

const document = { openapi: '3.1.0', info: { title: 'Test API', version: '1.0.0' }, paths: {} };

/** A service logger made as the service makes it, writing into memory. */
function serviceLogger(level: Level) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    {
      write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  );
  return { logger, lines };
}

function app(level: Level) {
  const { logger, lines } = serviceLogger(level);
  const router = express.Router();
  router.post('/things', async (req, res) => {
    await sleep(5);
    res.status(201).json({ name: (req.body as { name: string }).name });
  });
  router.get('/broken', async () => {
    await sleep(1);
    throw new Error('boom');
  });
  const served = createApiApp({
    basePath: '/main/v1',
    docs: { document },
    routers: [router],
    logger,
    tokens: testAccessTokens(),
  });
  return { served, lines };
}

describe('request ids in every log line', () => {
  it('when a request is handled, then its request line carries the request id', async () => {
    // Arrange
    const { served, lines } = app('info');

    // Act
    const response = await request(served)
      .post('/main/v1/things')
      .set('X-Request-Id', 'request-1')
      .send({ name: 'a' });

    // Assert
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBe('request-1');
    expect(lines.find((line) => line.msg === 'request completed')).toMatchObject({
      reqId: 'request-1',
      req: { id: 'request-1' },
    });
  });

  it.each(['info', 'error'] as const)(
    'when a route fails unexpectedly (log level %s), then the error line carries the request id the 500 answer names',
    async (level) => {
      // Arrange
      const { served, lines } = app(level);

      // Act
      const response = await request(served).get('/main/v1/broken');

      // Assert
      expect(response.status).toBe(500);
      const id = response.headers['x-request-id'];
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(lines.find((line) => line.msg === 'unhandled error')).toMatchObject({ reqId: id });
    },
  );

  it('when requests run concurrently, then each line carries its own request id', async () => {
    // Arrange
    const { served, lines } = app('info');

    // Act
    await Promise.all(
      ['c-1', 'c-2', 'c-3'].map((id) =>
        request(served).post('/main/v1/things').set('X-Request-Id', id).send({ name: id }),
      ),
    );

    // Assert
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed.map((line) => line.reqId).sort()).toEqual(['c-1', 'c-2', 'c-3']);
    for (const line of completed) expect(line.req).toMatchObject({ id: line.reqId });
  });
});
