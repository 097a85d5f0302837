import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IssuerDomainLimitError,
  claimIssuerDomain,
  findIssuerDomain,
  listIssuerDomains,
  findUsers,
  recordIssuerDomainCheck,
  releaseIssuerDomain,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser } from './test-data.js';

const NOW = 1_800_000_000_000;

describe.each(testBackends())('issuer domains on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  /** The issuer domain a user's new certificates name, as their user is read for a request. */
  async function issuerDomainOf(userId: string): Promise<string | undefined> {
    return (await findUsers(db.knex, [userId])).get(userId)?.issuerDomain;
  }

  afterAll(async () => {
    await db.close();
  });

  it('when a user claims a domain twice, then one unproven claim is kept, the first', async () => {
    const user = await givenUser(db.knex);

    const first = await claimIssuerDomain(db.knex, {
      userId: user.id,
      domain: 'u.example',
      now: NOW,
      max: 20,
    });
    const again = await claimIssuerDomain(db.knex, {
      userId: user.id,
      domain: 'u.example',
      now: NOW + 5,
      max: 20,
    });

    expect(first).toEqual({
      created: true,
      record: {
        userId: user.id,
        domain: 'u.example',
        claimedAt: NOW,
        provenAt: null,
        checkedAt: null,
        checkDetail: null,
      },
    });
    expect(again).toEqual({ created: false, record: first.record });
    await expect(listIssuerDomains(db.knex, user.id)).resolves.toEqual([first.record]);
  });

  it('when several users are looked up together, then each is read with the domain it proved last, and a user with none with no domain', async () => {
    const [first, second, third] = [
      await givenUser(db.knex),
      await givenUser(db.knex),
      await givenUser(db.knex),
    ];
    for (const [user, domain, at] of [
      [first, 'one.example', NOW],
      [first, 'two.example', NOW + 5],
      [second, 'three.example', NOW + 1],
      [third, 'unproven.example', undefined],
    ] as const) {
      await claimIssuerDomain(db.knex, { userId: user.id, domain, now: NOW, max: 20 });
      if (at !== undefined) {
        await recordIssuerDomainCheck(db.knex, {
          userId: user.id,
          domain,
          proven: true,
          now: at,
          detail: 'found',
        });
      }
    }

    const found = await findUsers(db.knex, [first.id, second.id, third.id]);

    expect([first, second, third].map((user) => found.get(user.id)?.issuerDomain)).toEqual([
      'two.example',
      'three.example',
      undefined,
    ]);
    expect(found.get(third.id)).not.toHaveProperty('issuerDomain');
    await expect(issuerDomainOf(first.id)).resolves.toBe('two.example');
  });

  it('when checks prove two domains, then new certificates name the one proven last, and one no longer found is unproven', async () => {
    const user = await givenUser(db.knex);
    await claimIssuerDomain(db.knex, { userId: user.id, domain: 'a.example', now: NOW, max: 20 });
    await claimIssuerDomain(db.knex, { userId: user.id, domain: 'b.example', now: NOW, max: 20 });
    const none = await issuerDomainOf(user.id);

    await recordIssuerDomainCheck(db.knex, {
      userId: user.id,
      domain: 'a.example',
      proven: true,
      now: NOW + 1,
      detail: 'found',
    });
    await recordIssuerDomainCheck(db.knex, {
      userId: user.id,
      domain: 'b.example',
      proven: true,
      now: NOW + 2,
      detail: 'found',
    });
    const latest = await issuerDomainOf(user.id);
    const unproven = await recordIssuerDomainCheck(db.knex, {
      userId: user.id,
      domain: 'b.example',
      proven: false,
      now: NOW + 3,
      detail: 'no record',
    });

    expect(none).toBeUndefined();
    expect(latest).toBe('b.example');
    expect(unproven).toMatchObject({
      provenAt: null,
      checkedAt: NOW + 3,
      checkDetail: 'no record',
    });
    await expect(issuerDomainOf(user.id)).resolves.toBe('a.example');
  });

  it('when a claim is released, then it is gone for its user only, and a second release finds nothing', async () => {
    const user = await givenUser(db.knex);
    const other = await givenUser(db.knex);
    await claimIssuerDomain(db.knex, {
      userId: user.id,
      domain: 'shared.example',
      now: NOW,
      max: 20,
    });
    await claimIssuerDomain(db.knex, {
      userId: other.id,
      domain: 'shared.example',
      now: NOW,
      max: 20,
    });

    const released = await releaseIssuerDomain(db.knex, user.id, 'shared.example');
    const again = await releaseIssuerDomain(db.knex, user.id, 'shared.example');

    expect([released, again]).toEqual([true, false]);
    await expect(findIssuerDomain(db.knex, user.id, 'shared.example')).resolves.toBeUndefined();
    await expect(findIssuerDomain(db.knex, other.id, 'shared.example')).resolves.toMatchObject({
      userId: other.id,
    });
  });

  it('when a domain is not in its stored form, then the database refuses it', async () => {
    const user = await givenUser(db.knex);

    await expect(
      claimIssuerDomain(db.knex, { userId: user.id, domain: 'Upper.Example', now: NOW, max: 20 }),
    ).rejects.toThrow(/issuer_domains_domain_check/);
  });
  it('when a user at the limit claims another domain, even many at once, then it is refused and the count stays at the limit; a claim held already is answered', async () => {
    const user = await givenUser(db.knex);
    const claim = (domain: string) =>
      db.knex.transaction((trx) =>
        claimIssuerDomain(trx, { userId: user.id, domain, now: NOW, max: 3 }),
      );

    const settled = await Promise.allSettled(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => claim(`${name}.limit.example`)),
    );
    const held = await listIssuerDomains(db.knex, user.id);
    const again = await claim(held[0]?.domain ?? '');

    expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    const refused = settled.flatMap((result): unknown[] =>
      result.status === 'rejected' ? [result.reason] : [],
    );
    expect(refused).toHaveLength(3);
    expect(refused.every((reason) => reason instanceof IssuerDomainLimitError)).toBe(true);
    expect(held).toHaveLength(3);
    expect(again.created).toBe(false);
  });
});
