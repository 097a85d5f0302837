import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createUser, savePlan } from '@trustpoint/db';
import {
  callerStateDigest,
  openTestDatabase,
  testBackends,
  type TestDatabase,
} from '../src/index.js';

describe.each(testBackends())('callerStateDigest on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    await savePlan(db.knex, { id: 'plan', name: 'plan', networkIds: ['31337'] });
    await createUser(db.knex, {
      id: 'user',
      displayName: 'user',
      planId: 'plan',
      initialCredits: 5,
    });
    await db.knex('api_keys').insert({
      id: 'DigestKey001',
      user_id: 'user',
      name: 'k',
      secret_hash: 'a'.repeat(64),
      scope: 'read certify',
    });
  });

  afterAll(async () => {
    await db.close();
  });

  it.each([
    ['a user is disabled', `update users set disabled_at = now() where id = 'user'`],
    ['credits are spent', `update credits set balance = balance - 1 where user_id = 'user'`],
    ['a plan is renamed', `update plans set name = 'renamed' where id = 'plan'`],
    ["an API key's scopes change", `update api_keys set scope = 'read' where id = 'DigestKey001'`],
    ['an audit entry is written', `insert into audit_log (action, target) values ('x', 'y')`],
  ])('when %s, then the digest changes', async (_case, statement) => {
    // Arrange
    const before = await callerStateDigest(db.knex);

    // Act
    await db.knex.raw(statement);

    // Assert
    expect(await callerStateDigest(db.knex)).not.toBe(before);
  });

  it('when only a wrong-PIN counter moves, then the digest stays (not a caller-visible change)', async () => {
    // Arrange
    const before = await callerStateDigest(db.knex);

    // Act
    await db.knex('pin_failures').insert({
      scope: 'address',
      subject: '127.0.0.1',
      failures: 1,
      window_ends_at: Date.now(),
    });

    // Assert
    expect(await callerStateDigest(db.knex)).toBe(before);
  });
});
