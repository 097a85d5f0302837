import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiApp } from '../src/api-app.js';
import { capturedLogger } from './support/captured-logger.js';

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
  return createApiApp({ basePath: '/api/v1', docs: { document }, routers: [router], logger });
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
