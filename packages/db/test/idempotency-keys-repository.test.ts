import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimIdempotencyKey,
  claimNewIdempotencyKeys,
  commitIdempotencyKey,
  commitIdempotencyKeys,
  completeIdempotencyKey,
  completeIdempotencyKeys,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  restartIdempotencyKey,
  type IdempotencyClaim,
  type IdempotentRequest,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser } from './test-data.js';

const NOW = 1_800_000_000_000;
const LEASE = 30_000;
const DAY = 86_400_000;
const ANSWER = { status: 201, headers: { location: '/x' }, body: '{"statusCode":201}' };

describe.each(testBackends())('idempotency keys on %s', (backend) => {
  let db: TestDatabase;
  let userId: string;

  beforeAll(async () => {
    db = await openTestDatabase(backend, { poolMax: 20 });
    userId = (await givenUser(db.knex)).id;
  });

  afterAll(async () => {
    await db.close();
  });

  const request = (overrides: Partial<IdempotentRequest> = {}): IdempotentRequest => ({
    userId,
    key: overrides.key ?? randomUUID(),
    fingerprint: 'f1',
    owner: randomUUID(),
    now: NOW,
    leaseMs: LEASE,
    retentionMs: DAY,
    ...overrides,
  });
  const claimed = async (first: IdempotentRequest): Promise<IdempotencyClaim> => {
    const outcome = await claimIdempotencyKey(db.knex, first);
    if (outcome.kind !== 'claimed') throw new Error(`expected claimed, got ${outcome.kind}`);
    return outcome.claim;
  };

  it('when a key is claimed twice, then the second finds it running with the rest of its lease, or refused for another request', async () => {
    // Arrange
    const first = request();
    await claimed(first);

    // Act
    const same = await claimIdempotencyKey(db.knex, request({ key: first.key, now: NOW + 1_000 }));
    const other = await claimIdempotencyKey(
      db.knex,
      request({ key: first.key, fingerprint: 'f2' }),
    );

    // Assert
    expect(same).toEqual({ kind: 'running', retryAfterMs: LEASE - 1_000 });
    expect(other).toEqual({ kind: 'mismatch' });
  });

  it('when the answer is stored, then every later claim gets it back', async () => {
    // Arrange
    const first = request();
    const claim = await claimed(first);

    // Act
    expect(await completeIdempotencyKey(db.knex, claim, ANSWER)).toBe(true);
    const retry = await claimIdempotencyKey(
      db.knex,
      request({ key: first.key, now: NOW + DAY - 1 }),
    );

    // Assert
    expect(retry).toEqual({ kind: 'completed', response: ANSWER });
  });

  it('when a lease runs out before the change committed, then a retry takes the key over and the first owner can no longer commit nor answer', async () => {
    // Arrange
    const first = request();
    const lost = await claimed(first);

    // Act
    const retry = await claimIdempotencyKey(
      db.knex,
      request({ key: first.key, now: NOW + LEASE + 1 }),
    );
    const lateCommit = await db.knex.transaction((trx) => commitIdempotencyKey(trx, lost, 'r1'));
    const lateAnswer = await completeIdempotencyKey(db.knex, lost, ANSWER);

    // Assert
    expect(retry.kind).toBe('claimed');
    expect(lateCommit).toBe(false);
    expect(lateAnswer).toBe(false);
  });

  it('when a group commits several keys in one statement, then those still held are committed naming their resources and a lost one is not', async () => {
    // Arrange: two held claims and one whose lease ran out and was taken over by a retry.
    const [first, second, third] = [request(), request(), request()];
    const held = [await claimed(first), await claimed(second)];
    const lost = await claimed(third);
    await claimIdempotencyKey(db.knex, request({ key: third.key, now: NOW + LEASE + 1 }));

    // Act
    const committed = await db.knex.transaction((trx) =>
      commitIdempotencyKeys(trx, [
        { claim: held[0] as IdempotencyClaim, resource: 'certificate-a' },
        { claim: lost, resource: 'certificate-lost' },
        { claim: held[1] as IdempotencyClaim, resource: 'certificate-b' },
      ]),
    );
    const retryOfFirst = await claimIdempotencyKey(
      db.knex,
      request({ key: first.key, now: NOW + LEASE + 1 }),
    );

    // Assert
    expect(committed).toEqual([true, false, true]);
    expect(retryOfFirst).toMatchObject({ kind: 'recover', resource: 'certificate-a' });
    await expect(db.knex.transaction((trx) => commitIdempotencyKeys(trx, []))).resolves.toEqual([]);
  });

  it('when a group claims its keys in one statement, then new keys are its own and a used one, or a key twice in the group, is left to the single claim', async () => {
    // Arrange: a key a request already holds
    const used = request();
    await claimed(used);
    const [fresh, again, twin, twinOfTwin] = [
      request(),
      request({ key: used.key }),
      request(),
      request(),
    ];
    twinOfTwin.key = twin.key;

    // Act
    const claims = await claimNewIdempotencyKeys(db.knex, [fresh, again, twin, twinOfTwin]);
    const afterwards = await Promise.all(
      [again, twinOfTwin].map((left) => claimIdempotencyKey(db.knex, left)),
    );

    // Assert
    expect(claims).toEqual([true, false, true, false]);
    expect(afterwards.map((outcome) => outcome.kind)).toEqual(['running', 'running']);
    const freshRow = await db
      .knex('idempotency_keys')
      .where({ user_id: userId, key: fresh.key })
      .first<{ state: string; owner: string; lease_expires_at: string | number } | undefined>();
    expect(freshRow?.state).toBe('running');
    expect(freshRow?.owner).toBe(fresh.owner);
    expect(Number(freshRow?.lease_expires_at)).toBe(NOW + LEASE);
    await expect(claimNewIdempotencyKeys(db.knex, [])).resolves.toEqual([]);
  });

  it('when several answers are stored in one statement, then those whose claims still hold are replayed as sent and a lost one is not stored', async () => {
    // Arrange: two held claims and one taken over by a retry after its lease ran out
    const [first, second, third] = [request(), request(), request()];
    const [firstClaim, secondClaim, lostClaim] = [
      await claimed(first),
      await claimed(second),
      await claimed(third),
    ];
    await claimIdempotencyKey(db.knex, request({ key: third.key, now: NOW + LEASE + 1 }));
    const other = { status: 202, headers: { 'preference-applied': 'respond-async' }, body: '{}' };

    // Act
    const stored = await completeIdempotencyKeys(db.knex, [
      { claim: firstClaim, response: ANSWER },
      { claim: lostClaim, response: ANSWER },
      { claim: secondClaim, response: other },
    ]);
    const replays = await Promise.all(
      [first, second, third].map((done) =>
        claimIdempotencyKey(db.knex, request({ key: done.key, now: NOW + LEASE + 2 })),
      ),
    );

    // Assert
    expect(stored).toEqual([true, false, true]);
    expect(replays[0]).toEqual({ kind: 'completed', response: ANSWER });
    expect(replays[1]).toEqual({ kind: 'completed', response: other });
    expect(replays[2]?.kind).toBe('running');
    await expect(completeIdempotencyKeys(db.knex, [])).resolves.toEqual([]);
  });

  it('when a change committed and its owner went silent, then a retry recovers its resource, or runs again once it is gone', async () => {
    // Arrange
    const first = request();
    const claim = await claimed(first);
    await db.knex.transaction((trx) => commitIdempotencyKey(trx, claim, 'certificate-1'));

    // Act
    const during = await claimIdempotencyKey(db.knex, request({ key: first.key, now: NOW + 1 }));
    const after = await claimIdempotencyKey(
      db.knex,
      request({ key: first.key, now: NOW + LEASE + 1 }),
    );

    // Assert
    expect(during.kind).toBe('running');
    expect(after).toMatchObject({ kind: 'recover', resource: 'certificate-1' });
    if (after.kind !== 'recover') return;
    expect(await restartIdempotencyKey(db.knex, after.claim)).toBe(true);
    expect(await db.knex.transaction((trx) => commitIdempotencyKey(trx, after.claim, 'c2'))).toBe(
      true,
    );
  });

  it('when a request ends in a 5xx, then its key is free again (or, committed, left to the next retry at once)', async () => {
    // Arrange
    const running = request();
    const committed = request();
    const runningClaim = await claimed(running);
    const committedClaim = await claimed(committed);
    await db.knex.transaction((trx) => commitIdempotencyKey(trx, committedClaim, 'asset-1'));

    // Act
    await releaseIdempotencyKey(db.knex, runningClaim, NOW + 10);
    await releaseIdempotencyKey(db.knex, committedClaim, NOW + 10);

    // Assert
    expect(
      (await claimIdempotencyKey(db.knex, request({ key: running.key, now: NOW + 20 }))).kind,
    ).toBe('claimed');
    expect(
      await claimIdempotencyKey(db.knex, request({ key: committed.key, now: NOW + 20 })),
    ).toMatchObject({ kind: 'recover', resource: 'asset-1' });
  });

  it('when keys pass their retention, then a claim treats them as new and the prune deletes them', async () => {
    // Arrange
    const old = request({ now: NOW - 2 * DAY });
    const claim = await claimed(old);
    await completeIdempotencyKey(db.knex, claim, ANSWER);
    const kept = request();
    await claimed(kept);

    // Act
    const pruned = await pruneIdempotencyKeys(db.knex, NOW);

    // Assert
    expect(pruned).toBeGreaterThanOrEqual(1);
    const keys = await db.knex('idempotency_keys').pluck<string[]>('key');
    expect(keys).not.toContain(old.key);
    expect(keys).toContain(kept.key);
    expect((await claimIdempotencyKey(db.knex, request({ key: old.key }))).kind).toBe('claimed');
  });

  it('when 10 claims of one key race, then exactly one gets it', async () => {
    // Arrange
    const key = randomUUID();

    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => claimIdempotencyKey(db.knex, request({ key }))),
    );

    // Assert
    expect(outcomes.filter((outcome) => outcome.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'running')).toHaveLength(9);
  });
});
