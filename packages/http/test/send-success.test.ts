import { successEnvelopeSchema } from '@trustpoint/domain';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { sendSuccess } from '../src/send-success.js';
import { testApp } from './support/test-app.js';

describe('sendSuccess', () => {
  it('when a route succeeds, then the body is the spec envelope with the same status', async () => {
    // Arrange
    const app = testApp((app) => {
      app.post('/certificates', (_req, res) => {
        sendSuccess(res, 201, 'Certificate created', { certID: 'did:trustpoint:certid:1' });
      });
    });

    // Act
    const response = await request(app).post('/certificates');

    // Assert
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      statusCode: 201,
      message: 'Certificate created',
      data: { certID: 'did:trustpoint:certid:1' },
    });
    expect(
      successEnvelopeSchema(z.object({ certID: z.string() })).safeParse(response.body).success,
    ).toBe(true);
  });
});
