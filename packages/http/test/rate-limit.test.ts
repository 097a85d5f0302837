import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { authenticate } from '../src/authenticate.js';
import { rateLimit } from '../src/rate-limit.js';
import { fakeAuthOptions, testUser } from './support/fake-users.js';
import { testApp } from './support/test-app.js';
import { signToken } from './support/tokens.js';

const LIMIT = 3;

function limitedApp() {
  return testApp((app) => {
    app.use(authenticate(fakeAuthOptions([testUser('alice'), testUser('bob')])));
    app.use(rateLimit({ windowMs: 60_000, limit: LIMIT }));
    app.get('/certificates', (_req, res) => res.sendStatus(204));
  });
}

async function callAs(app: ReturnType<typeof limitedApp>, userId: string) {
  return request(app)
    .get('/certificates')
    .set('Authorization', `Bearer ${await signToken(userId)}`);
}

describe('rateLimit', () => {
  it('when a user exceeds the limit, then 429 with the too-many-requests body', async () => {
    // Arrange
    const app = limitedApp();
    for (let i = 0; i < LIMIT; i += 1) {
      expect((await callAs(app, 'alice')).status).toBe(204);
    }

    // Act
    const response = await callAs(app, 'alice');

    // Assert
    expect(response.status).toBe(429);
    expect(response.body).toEqual({
      statusCode: 429,
      type: 'Too Many Requests Error',
      message: 'Too many requests, please try again later',
    });
    expect(response.headers['retry-after']).toBeDefined();
  });

  it('when one user is limited, then another user from the same address is not', async () => {
    // Arrange
    const app = limitedApp();
    for (let i = 0; i <= LIMIT; i += 1) await callAs(app, 'alice');

    // Act
    const response = await callAs(app, 'bob');

    // Assert
    expect(response.status).toBe(204);
  });

  it('when callers are anonymous, then they are counted by address', async () => {
    // Arrange
    const app = testApp((app) => {
      app.use(rateLimit({ windowMs: 60_000, limit: 1 }));
      app.get('/public', (_req, res) => res.sendStatus(204));
    });
    await request(app).get('/public');

    // Act
    const response = await request(app).get('/public');

    // Assert
    expect(response.status).toBe(429);
  });
});
