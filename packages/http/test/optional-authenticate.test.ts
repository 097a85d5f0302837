import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { optionalAuthenticate } from '../src/authenticate.js';
import { optionalCurrentUser } from '../src/current-user.js';
import { sendSuccess } from '../src/send-success.js';
import { fakeAuthOptions, testUser } from './support/fake-users.js';
import { signToken } from './support/tokens.js';
import { testApp } from './support/test-app.js';

async function bearer(token: Promise<string>): Promise<string> {
  return `Bearer ${await token}`;
}

function publicApp() {
  return testApp((app) => {
    app.get(
      '/certificates/public',
      optionalAuthenticate(fakeAuthOptions([testUser('alice')])),
      (_req, res) => {
        sendSuccess(res, 200, 'Reader', { reader: optionalCurrentUser(res)?.id ?? null });
      },
    );
  });
}

describe('optionalAuthenticate', () => {
  it('when there is no Authorization header, then the caller is anonymous', async () => {
    // Arrange
    const app = publicApp();

    // Act
    const response = await request(app).get('/certificates/public');

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ statusCode: 200, message: 'Reader', data: { reader: null } });
  });

  it('when the token is valid, then the caller is the user', async () => {
    // Arrange
    const token = await signToken('alice');

    // Act
    const response = await request(publicApp())
      .get('/certificates/public')
      .set('Authorization', `Bearer ${token}`);

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: { reader: 'alice' } });
  });

  it.each([
    ['another scheme', 'Basic x', 'Token is not provided'],
    ['a malformed token', 'Bearer not-a-jwt', 'Token is invalid'],
    ['an expired token', bearer(signToken('alice', { expiresIn: -60 })), 'Token is expired'],
    ['an unknown user', bearer(signToken('mallory')), 'User credentials are wrong'],
  ])(
    'when the header carries %s, then 401 as on protected routes',
    async (_case, header, message) => {
      // Arrange
      const app = publicApp();

      // Act
      const response = await request(app)
        .get('/certificates/public')
        .set('Authorization', await header);

      // Assert
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({
        statusCode: 401,
        type: 'Authentication Error',
        message,
      });
      if (header === 'Basic x') {
        expect((response.body as { errors?: unknown }).errors).toEqual([
          {
            field: 'Authorization',
            error: 'The Basic scheme is not accepted: send "Authorization: Bearer <token>"',
          },
        ]);
      }
    },
  );
});
