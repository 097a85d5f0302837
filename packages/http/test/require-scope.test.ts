import { createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { authenticate, optionalAuthenticate } from '../src/authenticate.js';
import { mintAccessToken } from '../src/mint-access-token.js';
import { requireScope } from '../src/require-scope.js';
import { sendSuccess } from '../src/send-success.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../src/token-settings.js';

import { fakeAuthOptions, TEST_SECRET, testUser } from './support/fake-users.js';
import { testApp } from './support/test-app.js';

const alice = testUser('alice');

function scopedApp() {
  const auth = fakeAuthOptions([alice]);
  return testApp((app) => {
    app.post('/certificates', authenticate(auth), requireScope('certify'), (_req, res) => {
      sendSuccess(res, 201, 'Made', {});
    });
    app.get('/public', optionalAuthenticate(auth), requireScope('read'), (_req, res) => {
      sendSuccess(res, 200, 'Read', {});
    });
  });
}

const token = (scopes?: Parameters<typeof mintAccessToken>[1]['scopes']) =>
  mintAccessToken(TEST_SECRET, {
    subject: alice.id,
    ttlSeconds: 60,
    ...(scopes === undefined ? {} : { scopes }),
  });

describe('requireScope', () => {
  it('when a token has no scope claim, then it has full access', async () => {
    // Act
    const response = await request(scopedApp())
      .post('/certificates')
      .set('Authorization', `Bearer ${await token()}`);

    // Assert
    expect(response.status).toBe(201);
  });

  it('when a token lacks the scope, then 403 naming it with an RFC 6750 challenge', async () => {
    // Act
    const response = await request(scopedApp())
      .post('/certificates')
      .set('Authorization', `Bearer ${await token(['read', 'track'])}`);

    // Assert
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      statusCode: 403,
      type: 'Forbidden Error',
      message: 'The credential does not have the scope this operation requires',
      errors: [
        {
          field: 'scope',
          error: 'This operation requires the scope "certify"; the credential has "read track"',
        },
      ],
    });
    expect(response.headers['www-authenticate']).toMatch(
      /^Bearer error="insufficient_scope", scope="certify"/,
    );
  });

  it('when a token holds the scope, then the request goes through', async () => {
    // Act
    const response = await request(scopedApp())
      .post('/certificates')
      .set('Authorization', `Bearer ${await token(['certify'])}`);

    // Assert
    expect(response.status).toBe(201);
  });

  it('when a public read is anonymous, then it passes; with a token without read, then 403', async () => {
    // Act
    const anonymous = await request(scopedApp()).get('/public');
    const scoped = await request(scopedApp())
      .get('/public')
      .set('Authorization', `Bearer ${await token(['certify'])}`);

    // Assert
    expect(anonymous.status).toBe(200);
    expect(scoped.status).toBe(403);
  });

  it('when a token names a scope this service does not know, then 401 "Token is invalid"', async () => {
    // Arrange: a token of the service's secret with a scope no code of the service writes.
    const now = Math.floor(Date.now() / 1_000);
    const forged = await new SignJWT({ scope: 'read everything' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(alice.id)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(createSecretKey(Buffer.from(TEST_SECRET, 'utf8')));

    // Act
    const response = await request(scopedApp())
      .post('/certificates')
      .set('Authorization', `Bearer ${forged}`);

    // Assert
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ message: 'Token is invalid' });
  });
});
