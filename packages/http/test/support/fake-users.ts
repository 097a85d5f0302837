import type { User } from '@trustpoint/db';

import { AccessTokens } from '../../src/access-tokens.js';
import type { AuthenticateOptions } from '../../src/authenticate.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/token-settings.js';

export const TEST_SECRET = 'test-secret-with-at-least-32-characters!';

export function testUser(id: string): User {
  return {
    id,
    displayName: `User ${id}`,
    qualified: false,
    role: 'user',
    planId: 'free',
    planNetworkIds: ['31337'],
    createdAt: new Date(0),
  };
}

/** Access tokens checked against the test secret, as the test tokens are signed. */
export function testAccessTokens(): AccessTokens {
  return new AccessTokens({ secret: TEST_SECRET, issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE });
}

/**
 * Authentication options over an in-memory user table. The database lookup itself (`findUser`) is
 * tested in @trustpoint/db; here only what authenticate does with its answer matters.
 */
export function fakeAuthOptions(users: readonly User[]): AuthenticateOptions {
  const byId = new Map(users.map((user) => [user.id, user]));
  return {
    tokens: testAccessTokens(),
    findUser: (id) => Promise.resolve(byId.get(id)),
  };
}
