import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { testApp } from './support/test-app.js';

describe('notFoundHandler', () => {
  it('when no route matches, then 404 with the catalogue body', async () => {
    // Arrange
    const app = testApp((app) => {
      app.get('/certificates', (_req, res) => res.sendStatus(204));
    });

    // Act
    const response = await request(app).post('/nothing-here');

    // Assert
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      statusCode: 404,
      type: 'Not Found Error',
      message: 'The requested resource was not found',
    });
  });
});
