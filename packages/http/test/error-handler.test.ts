import { createErrorCatalogue, DomainError, type ErrorCode } from '@trustpoint/domain';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { authenticate } from '../src/authenticate.js';
import { errorHandler } from '../src/error-handler.js';
import { requestLogger } from '../src/request-logger.js';
import { SERVICE_BUSY_BODY, ServiceBusyError } from '../src/service-busy.js';
import { TOO_MANY_REQUESTS_BODY, TooManyRequestsError } from '../src/too-many-requests.js';
import { capturedLogger } from './support/captured-logger.js';
import { fakeAuthOptions, testUser } from './support/fake-users.js';
import { testApp } from './support/test-app.js';
import { signToken } from './support/tokens.js';

function appThrowing(error: unknown) {
  return testApp((app) => {
    app.get('/fail', () => {
      throw error;
    });
  });
}

describe('errorHandler', () => {
  it('when a validation DomainError is thrown, then 400 with its errors', async () => {
    // Arrange
    const errors = [
      { field: 'query.networkId', error: 'Required' },
      { field: 'body.name', error: 'Too long' },
    ];
    const app = appThrowing(new DomainError('validation', { errors }));

    // Act
    const response = await request(app).get('/fail');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      statusCode: 400,
      type: 'Validation Error',
      message: 'Request parameters are wrong, check requirements',
      errors,
    });
  });

  it.each<[ErrorCode, number, string, string]>([
    [
      'userNotQualified',
      403,
      'Forbidden Error',
      'User is not qualified, please try again with a qualified user',
    ],
    ['pinRequired', 403, 'Forbidden Error', 'This certificate requires a PIN, please provide it'],
    ['notFound', 404, 'Not Found Error', 'The requested resource was not found'],
    [
      'externalIdAlreadyRegistered',
      409,
      'Existing certificate error',
      'The provided externalId is already registered, please try again with a different one',
    ],
    [
      'payloadTooLarge',
      413,
      'Payload Too Large Error',
      'The request payload exceeds the configured limit',
    ],
    [
      'outOfCredits',
      429,
      'Out of Credits Error',
      'User has run out of credits. Please, contact the support team to increase the limit',
    ],
    [
      'networkUnavailable',
      503,
      'Service Unavailable Error',
      'The blockchain network is not available, please try again later',
    ],
  ])(
    'when DomainError %s is thrown, then %i with its catalogue body',
    async (code, statusCode, type, message) => {
      // Arrange
      const app = appThrowing(
        new DomainError(code, { detail: 'internal detail', errors: [{ field: 'x', error: 'y' }] }),
      );

      // Act
      const response = await request(app).get('/fail');

      // Assert: `errors` belongs to 400 only, and the detail stays in the logs.
      expect(response.status).toBe(statusCode);
      expect(response.body).toEqual({ statusCode, type, message });
    },
  );

  it('when the app has its own catalogue, then its support contact is in the message', async () => {
    // Arrange
    const catalogue = createErrorCatalogue({ supportContact: 'support@example.org' });
    const app = express();
    app.get('/fail', () => {
      throw new DomainError('providerNotInPlan');
    });
    app.use(errorHandler({ catalogue, logger: capturedLogger().logger }));

    // Act
    const response = await request(app).get('/fail');

    // Assert
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      message:
        'Provider not available in your plan. Please, contact support@example.org to include it',
    });
  });

  it('when a TooManyRequestsError says when to retry, then 429 with Retry-After in seconds', async () => {
    // Arrange
    const withRetry = appThrowing(new TooManyRequestsError('PINs', { retryAfterSeconds: 1_800 }));
    const withoutRetry = appThrowing(new TooManyRequestsError('requests'));

    // Act
    const limited = await request(withRetry).get('/fail');
    const plain = await request(withoutRetry).get('/fail');

    // Assert
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(TOO_MANY_REQUESTS_BODY);
    expect(limited.headers['retry-after']).toBe('1800');
    expect(plain.status).toBe(429);
    expect(plain.headers['retry-after']).toBeUndefined();
  });

  it('when a ServiceBusyError is thrown, then 503 with the busy body and Retry-After in seconds', async () => {
    // Arrange
    const app = appThrowing(new ServiceBusyError('verifications', { retryAfterSeconds: 2 }));

    // Act
    const response = await request(app).get('/fail');

    // Assert
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      statusCode: 503,
      type: 'Service Unavailable Error',
      message: 'The service is busy, please try again shortly',
    });
    expect(response.body).toEqual(SERVICE_BUSY_BODY);
    expect(response.headers['retry-after']).toBe('2');
  });

  it.each([
    ['40P01', 'deadlock detected'],
    ['40001', 'could not serialize access due to concurrent update'],
  ])(
    'when the database rolled the transaction back (%s, %s), then 503 busy with Retry-After, never the 500 of a fault',
    async (code, message) => {
      // Arrange: what node-postgres rejects with.
      const app = appThrowing(Object.assign(new Error(message), { code, severity: 'ERROR' }));

      // Act
      const response = await request(app).get('/fail');

      // Assert
      expect(response.status).toBe(503);
      expect(response.body).toEqual(SERVICE_BUSY_BODY);
      expect(response.headers['retry-after']).toBe('1');
    },
  );

  it('when a ZodError escapes a route, then 400 with one entry per issue', async () => {
    // Arrange
    const schema = z.object({ name: z.string(), size: z.number() });
    const parsed = schema.safeParse({ size: 'big' });
    const app = appThrowing(parsed.error);

    // Act
    const response = await request(app).get('/fail');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
    expect(response.body).toHaveProperty('errors', [
      { field: 'name', error: expect.any(String) as string },
      { field: 'size', error: expect.any(String) as string },
    ]);
  });

  it('when an async route rejects, then the error handler answers', async () => {
    // Arrange
    const app = testApp((app) => {
      app.get('/fail', async () => {
        await Promise.resolve();
        throw new DomainError('certificateAlreadyRegistered');
      });
    });

    // Act
    const response = await request(app).get('/fail');

    // Assert
    expect(response.status).toBe(409);
  });

  it('when an unknown error is thrown, then the generic 500 is sent and the error is logged without the token', async () => {
    // Arrange
    const { logger, lines, entries } = capturedLogger();
    const token = await signToken('alice');
    const app = express();
    app.use(requestLogger(logger));
    app.get('/certificates', authenticate(fakeAuthOptions([testUser('alice')])), () => {
      throw new Error('connection to db-primary:5432 refused');
    });
    app.use(errorHandler({ logger }));

    // Act
    const response = await request(app)
      .get('/certificates?pin=1234')
      .set('Authorization', `Bearer ${token}`);

    // Assert: the caller learns nothing.
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      statusCode: 500,
      type: 'Internal Server Error',
      message: 'Oops! Something went wrong, please try again later',
    });
    expect(response.text).not.toContain('db-primary');
    // Assert: the operator learns everything but the credentials.
    const errorEntry = entries().find((entry) => entry.msg === 'unhandled error');
    expect(errorEntry).toMatchObject({
      level: 50,
      method: 'GET',
      path: '/certificates',
      err: {
        type: 'Error',
        message: 'connection to db-primary:5432 refused',
        stack: expect.any(String) as string,
      },
    });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line).not.toContain(token);
      expect(line).not.toContain('1234');
    }
  });

  it('when something that is not an Error is thrown, then the generic 500 is sent', async () => {
    // Arrange
    const app = appThrowing('a string');

    // Act
    const response = await request(app).get('/fail');

    // Assert
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({
      message: 'Oops! Something went wrong, please try again later',
    });
  });

  it('when the response has already started, then it leaves the error to Express', async () => {
    // Arrange
    const app = testApp((app) => {
      app.get('/stream', (_req, res) => {
        res.status(200).write('partial');
        throw new Error('failed mid-stream');
      });
    });

    // Act
    const outcome = request(app).get('/stream');

    // Assert: Express's default handler ends the response; no error body follows the data.
    await expect(outcome).rejects.toThrow();
  });
});
