import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchedUserLookup,
  constraintViolation,
  createUser,
  findCreditBalance,
  findPlan,
  findUser,
  findUsers,
  isNetworkInPlan,
  savePlan,
  updateUser,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { givenUser, uniqueId } from './test-data.js';

describe.each(testBackends())('plans and users on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  describe('plans', () => {
    it('when a plan is saved again, then its name and networks are replaced', async () => {
      // Arrange
      const id = uniqueId('plan');
      await savePlan(db.knex, { id, name: 'Free', networkIds: ['31337', '11155111'] });

      // Act
      await savePlan(db.knex, { id, name: 'Pro', networkIds: ['137', '31337', '137'] });

      // Assert
      expect(await findPlan(db.knex, id)).toEqual({
        id,
        name: 'Pro',
        networkIds: ['137', '31337'],
      });
    });

    it('when a plan does not exist, then finding it returns undefined', async () => {
      // Arrange
      const id = uniqueId('plan');

      // Act
      const plan = await findPlan(db.knex, id);

      // Assert
      expect(plan).toBeUndefined();
    });

    it("when a network is in the user's plan, then it is allowed, and others are not", async () => {
      // Arrange
      const user = await givenUser(db.knex, { networkIds: ['31337', '137'] });

      // Act
      const allowed = await isNetworkInPlan(db.knex, user.id, '137');
      const refused = await isNetworkInPlan(db.knex, user.id, '1');

      // Assert
      expect([allowed, refused]).toEqual([true, false]);
    });

    it('when the user is unknown, then no network is allowed', async () => {
      // Arrange
      const userId = uniqueId('nobody');

      // Act
      const allowed = await isNetworkInPlan(db.knex, userId, '31337');

      // Assert
      expect(allowed).toBe(false);
    });
  });

  describe('users', () => {
    it('when a user is created, then it is found with its plan and initial credits', async () => {
      // Arrange
      const plan = await savePlan(db.knex, {
        id: uniqueId('plan'),
        name: 'Free',
        networkIds: ['31337', '137'],
      });
      const id = uniqueId('user');

      // Act
      const created = await createUser(db.knex, {
        id,
        displayName: 'Ada',
        planId: plan.id,
        qualified: true,
        initialCredits: 10,
      });

      // Assert
      expect(created).toEqual({
        id,
        displayName: 'Ada',
        qualified: true,
        role: 'user',
        planId: plan.id,
        planNetworkIds: ['137', '31337'],
        createdAt: expect.any(Date) as unknown,
      });
      expect(await findUser(db.knex, id)).toEqual(created);
      expect(await findCreditBalance(db.knex, id)).toBe(10);
    });

    it('when the plan does not exist, then creating the user fails and leaves nothing behind', async () => {
      // Arrange
      const id = uniqueId('user');

      // Act
      const creation = createUser(db.knex, { id, displayName: 'Bob', planId: uniqueId('plan') });

      // Assert
      const violation = await creation.then(
        () => undefined,
        (error: unknown) => constraintViolation(error),
      );
      expect(violation?.kind).toBe('foreign-key');
      expect(await findUser(db.knex, id)).toBeUndefined();
      expect(await findCreditBalance(db.knex, id)).toBeUndefined();
    });

    it('when a user is updated, then only the given fields change', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const plan = await savePlan(db.knex, {
        id: uniqueId('plan'),
        name: 'Pro',
        networkIds: ['1'],
      });

      // Act
      const updated = await updateUser(db.knex, user.id, { qualified: true, planId: plan.id });

      // Assert
      expect(updated).toEqual({
        ...user,
        qualified: true,
        planId: plan.id,
        planNetworkIds: ['1'],
        disabledAt: null,
        credits: 0,
      });
    });

    it("when the user's plan changes its networks, then the user is read with the new ones", async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const plan = await savePlan(db.knex, {
        id: uniqueId('plan'),
        name: 'Pro',
        networkIds: ['1'],
      });
      await updateUser(db.knex, user.id, { planId: plan.id });

      // Act
      await savePlan(db.knex, { ...plan, networkIds: ['137'] });

      // Assert
      expect((await findUser(db.knex, user.id))?.planNetworkIds).toEqual(['137']);
    });

    it('when the user to update does not exist, then it returns undefined', async () => {
      // Arrange
      const id = uniqueId('nobody');

      // Act
      const updated = await updateUser(db.knex, id, { displayName: 'Nobody' });

      // Assert
      expect(updated).toBeUndefined();
    });
  });
  describe('findUsers and batchedUserLookup', () => {
    it('when users are found by several ids, then only the existing ones are returned, each with its plan networks', async () => {
      // Arrange
      const [first, second] = [
        await givenUser(db.knex, { networkIds: ['31337', '137'] }),
        await givenUser(db.knex, { networkIds: ['1'] }),
      ];
      const unknown = uniqueId('nobody');

      // Act
      const users = await findUsers(db.knex, [second.id, unknown, first.id, second.id]);

      // Assert
      expect(users).toEqual(
        new Map([
          [first.id, { ...first, planNetworkIds: ['137', '31337'] }],
          [second.id, { ...second, planNetworkIds: ['1'] }],
        ]),
      );
    });

    it('when no id is given, then no user is returned', async () => {
      // Arrange
      const ids: string[] = [];

      // Act
      const users = await findUsers(db.knex, ids);

      // Assert
      expect(users).toEqual(new Map());
    });

    it('when several lookups arrive together, then one query answers each with its own user or undefined', async () => {
      // Arrange
      const [first, second] = [await givenUser(db.knex), await givenUser(db.knex)];
      const unknown = uniqueId('nobody');
      const lookUp = batchedUserLookup(db.knex);
      const queries: string[] = [];
      const capture = (query: { sql: string }) => queries.push(query.sql);

      // Act
      db.knex.on('query', capture);
      const users = await Promise.all(
        [first.id, unknown, second.id, first.id].map((id) => lookUp(id)),
      ).finally(() => db.knex.off('query', capture));

      // Assert
      expect(users).toEqual([first, undefined, second, first]);
      expect(queries).toHaveLength(1);
    });
  });
});
