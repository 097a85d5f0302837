import { randomUUID } from 'node:crypto';
import { openTestDatabase, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { changeApiKeyScopes, createApiKey, findApiKey, type ApiKey } from '../src/index.js';
import { newUser } from './support/identity-app.js';

/**
 * Two changes of key trees at once, each holding a child key of the other's owner, on PostgreSQL
 * (PGlite serves one connection: nothing runs at once there). Each change, once its owner's lock is
 * held, waits on a row a third transaction holds; that one commits, and both go on to revoke the
 * other owner's child. Taking the owners' locks as each reached them, each then waited on the other
 * and PostgreSQL aborted one (40P01, a 500 to its caller); taken in id order up front, they take
 * turns.
 */
describe.runIf(process.env.DATABASE_URL)(
  'changes of two key trees sharing owners, on PostgreSQL',
  () => {
    let db: TestDatabase;

    beforeAll(async () => {
      db = await openTestDatabase('postgres');
    });
    afterAll(async () => {
      await db.close();
    });

    const scopes = ['read', 'certify', 'admin'] as const;

    /** A key of `owner`, and a child of it held by `childOwner` with `certify` only. */
    const keyWithChildOf = async (owner: string, childOwner: string) => {
      const { apiKey: parent } = await createApiKey(db.knex, {
        userId: owner,
        name: 'provisioning',
        expiresAt: null,
        createdBy: owner,
        scopes,
      });
      const { apiKey: child } = await createApiKey(db.knex, {
        userId: childOwner,
        name: 'integration',
        expiresAt: null,
        createdBy: owner,
        scopes: ['certify'],
        parentKeyId: parent.id,
      });
      return { parent, child };
    };

    /** The backends of this database waiting on a lock. */
    const waitingOnLocks = async () => {
      const result = await db.knex.raw<{ rows: { waiting: number }[] }>(
        `select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return result.rows[0]?.waiting ?? 0;
    };

    const narrowedToRead = (key: ApiKey) =>
      db.knex.transaction((trx) =>
        changeApiKeyScopes(trx, {
          userId: key.userId,
          keyId: key.id,
          scopes: ['read', 'admin'],
          mayWiden: true,
          actorId: null,
          requestId: null,
          now: new Date(),
        }),
      );

    it("when two keys whose children belong to each other's owner are narrowed at once, then both changes are made and both children revoked, with no deadlock", async () => {
      // Arrange: two users, each with a key that made a `certify` key for the other.
      const amy = (await newUser(db.knex, `amy-${randomUUID()}`)).id;
      const zed = (await newUser(db.knex, `zed-${randomUUID()}`)).id;
      const ofAmy = await keyWithChildOf(amy, zed);
      const ofZed = await keyWithChildOf(zed, amy);
      // Holds both keys' rows, so each change waits there with its first lock taken.
      const blocker = await db.knex.transaction();
      await blocker('api_keys').whereIn('id', [ofAmy.parent.id, ofZed.parent.id]).forUpdate();

      // Act
      const changes = Promise.allSettled([
        narrowedToRead(ofAmy.parent),
        narrowedToRead(ofZed.parent),
      ]);
      for (let waited = 0; (await waitingOnLocks()) < 2 && waited < 100; waited += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await blocker.commit();
      const [first, second] = await changes;

      // Assert
      expect(first).toMatchObject({ status: 'fulfilled', value: { revoked: [ofAmy.child.id] } });
      expect(second).toMatchObject({ status: 'fulfilled', value: { revoked: [ofZed.child.id] } });
      expect((await findApiKey(db.knex, zed, ofAmy.child.id))?.revokedAt).not.toBeNull();
      expect((await findApiKey(db.knex, amy, ofZed.child.id))?.revokedAt).not.toBeNull();
    });
  },
);
