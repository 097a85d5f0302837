import { randomUUID } from 'node:crypto';
import { createUser, savePlan } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { IdempotencyKeys } from '../src/idempotency/idempotency-keys.js';

/** A sealer that only marks what it sealed (the real one is the webhooks package's AES-GCM). */
const sealer = {
  seal: (text: string) => `[${text}]`,
  open: (sealed: string) => sealed.slice(1, -1),
};

describe.each(testBackends())('the Idempotency-Keys of concurrent requests on %s', (backend) => {
  let database: TestDatabase;
  let userId: string;
  /** The statements sent to the database since the test began, as SQL. */
  let sent: string[] = [];

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    const plan = await savePlan(database.knex, {
      id: `plan-${randomUUID()}`,
      name: 'Test plan',
      networkIds: ['31337'],
    });
    userId = (
      await createUser(database.knex, {
        id: `user-${randomUUID()}`,
        displayName: 'Keys',
        planId: plan.id,
        initialCredits: 0,
      })
    ).id;
    database.knex.on('query', (query: { sql: string }) => sent.push(query.sql));
  });

  afterAll(async () => {
    await database.close();
  });

  const statements = (start: RegExp) => sent.filter((sql) => start.test(sql.trim())).length;

  it('when 20 requests claim new keys and answer at once, then each group goes in one statement and each retry replays its own answer', async () => {
    // Arrange
    const keys = new IdempotencyKeys({
      knex: database.knex,
      logger: pino({ level: 'silent' }),
      sealer,
    });
    const used = randomUUID();
    const first = await keys.claim(userId, used, 'f');
    sent = [];
    const names = Array.from({ length: 20 }, () => randomUUID());

    // Act: 20 new keys and one already held, claimed in the same turn; then every answer
    const claims = await Promise.all([
      ...names.map((key) => keys.claim(userId, key, `f-${key}`)),
      keys.claim(userId, used, 'f'),
    ]);
    const claimStatements = statements(/^insert into "?idempotency_keys/i);
    await Promise.all(
      claims.slice(0, 20).map((claim, index) => {
        if (claim.kind !== 'claimed') throw new Error(`expected claimed, got ${claim.kind}`);
        const body = JSON.stringify({ n: index });
        return keys.hold(claim.claim).settle({ status: 201, headers: {}, body });
      }),
    );
    const answerStatements = statements(/^update "?idempotency_keys/i);
    const retries = await Promise.all(names.map((key) => keys.claim(userId, key, `f-${key}`)));

    // Assert: one insert for the group, and the held key's own (the insert that found it used)
    expect(first.kind).toBe('claimed');
    expect(claims.slice(0, 20).map((claim) => claim.kind)).toEqual(names.map(() => 'claimed'));
    expect(claims[20]?.kind).toBe('running');
    expect(claimStatements).toBe(2);
    expect(answerStatements).toBe(1);
    expect(
      retries.map((retry) => (retry.kind === 'completed' ? retry.response.body : retry.kind)),
    ).toEqual(names.map((_key, index) => JSON.stringify({ n: index })));
    const stored = await database
      .knex('idempotency_keys')
      .where({ user_id: userId, key: names[0] });
    expect(stored[0]).toMatchObject({ state: 'completed', response_body: 'sealed:[{"n":0}]' });
  });

  it('when one request of a group cannot claim its key (its user is gone), then only that one fails and the others hold theirs', async () => {
    // Arrange
    const keys = new IdempotencyKeys({
      knex: database.knex,
      logger: pino({ level: 'silent' }),
      sealer,
    });
    const names = [randomUUID(), randomUUID(), randomUUID()];

    // Act: claimed in the same turn, the second by a user the database does not know
    const outcomes = await Promise.allSettled(
      names.map((key, index) =>
        keys.claim(index === 1 ? `gone-${randomUUID()}` : userId, key, `f-${key}`),
      ),
    );

    // Assert
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const held = await database
      .knex('idempotency_keys')
      .whereIn('key', names)
      .pluck<string[]>('key');
    expect(held.sort()).toEqual([names[0], names[2]].sort());
  });
});
