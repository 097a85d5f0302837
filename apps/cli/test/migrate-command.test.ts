import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@trustpoint/db';
import { describe, expect, it } from 'vitest';
import { runTrustpoint as run } from './support/role-process.js';

describe('trustpoint migrate on the embedded database', () => {
  it('when a newer version migrated the database further, then it applies nothing and says so instead of "up to date"', async () => {
    // Arrange: a data directory migrated by this version, then by one to come.
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-migrate-'));
    const env = { DATABASE_URL: '', TRUSTPOINT_DATA_DIR: dataDir };
    try {
      const first = await run(['migrate'], env);
      const again = await run(['migrate'], env);
      const database = await createDatabase({ dataDir: join(dataDir, 'pgdata'), migrate: false });
      await database.knex('knex_migrations').insert({
        name: '9999-future-thing',
        batch: 99,
        migration_time: new Date(),
      });
      await database.close();

      // Act
      const onNewer = await run(['migrate'], env);
      const asJson = await run(['migrate', '--json'], env);

      // Assert
      expect(first.code).toBe(0);
      expect(first.output).toMatch(/^the embedded database: applied /);
      expect(again.output).toBe('the embedded database is up to date: no migration to apply\n');
      expect(onNewer.code).toBe(0);
      expect(onNewer.output).toBe(
        "the embedded database was migrated by a newer version of Trustpoint (9999-future-thing, unknown to this one): nothing to apply; this version runs on it, and the newer version's trustpoint migrate is the one to use\n",
      );
      expect(JSON.parse(asJson.output)).toEqual({
        backend: 'pglite',
        applied: [],
        newer: ['9999-future-thing'],
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
