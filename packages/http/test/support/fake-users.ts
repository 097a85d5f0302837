import type { User } from '@trustpoint/db';

import type { AuthenticateOptions } from '../../src/authenticate.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/token-settings.js';

export const TEST_SECRET = 'test-secret-with-at-least-32-characters!';

export function testUser(id: string): User {
  return {
    id,
    displayName: `User ${id}`,
    qualified: false,
    planId: 'free',
    planNetworkIds: ['31337'],
    createdAt: new Date(0),
  };
}

/**
 * Authentication options over an in-memory user table. The database lookup itself (`findUser`) is
 * tested in @trustpoint/db; here only what authenticate does with its answer matters.
 */
export function fakeAuthOptions(users: readonly User[]): AuthenticateOptions {
  const byId = new Map(users.map((user) => [user.id, user]));
  return {
    secret: TEST_SECRET,
    issuer: TOKEN_ISSUER,
    audience: TOKEN_AUDIENCE,
    findUser: (id) => Promise.resolve(byId.get(id)),
  };
}
