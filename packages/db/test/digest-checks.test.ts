import { afterEach, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../src/index.js';
import { migrationSource, migrationSourceOf } from '../src/migration-source.js';
import { DIGEST_CHECKS } from '../src/migrations/0027-cheaper-digest-checks.js';
import { hexDigestCheck, hexDigestCheckUnrolled } from '../src/migrations/hex-digest-check.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest, violationOf } from './test-data.js';

const DIGEST = randomDigest();

/** Values on each side of "64 lowercase hex characters", and the ways to be nearly that. */
const CANDIDATES = [
  DIGEST,
  '0'.repeat(64),
  'f'.repeat(64),
  DIGEST.slice(1),
  `${DIGEST}0`,
  DIGEST.toUpperCase(),
  `A${DIGEST.slice(1)}`,
  `${DIGEST.slice(0, 63)}g`,
  ` ${DIGEST.slice(1)}`,
  `${DIGEST.slice(0, 32)} ${DIGEST.slice(33)}`,
  `${DIGEST.slice(0, 63)}\n`,
  `${DIGEST}\n`,
  `${DIGEST.slice(0, 63)}٣`,
  `${DIGEST.slice(0, 62)}é`,
  `0x${DIGEST.slice(2)}`,
  '',
  'a',
];

const before0027 = migrationSourceOf(migrations.filter((m) => m.name < '0027'));

describe.each(testBackends())('digest checks (migration 0027) on %s', (backend) => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('when a value is checked as text, char(64) or char(66), then the unrolled check and the regular expression agree', async () => {
    // Arrange
    db = await openTestDatabase(backend, { migrate: false });
    const values = [...CANDIDATES, ...CANDIDATES.map((value) => `0x${value}`), '0X'.concat(DIGEST)];
    const cases = ['text', 'char(64)', 'char(66)'].flatMap((type) =>
      values.flatMap((value) => [
        { type, value, before: hexDigestCheck('v'), after: hexDigestCheckUnrolled('v') },
        {
          type,
          value,
          before: "v ~ '^0x[0-9a-f]{64}$'",
          after: hexDigestCheckUnrolled('v', '0x'),
        },
      ]),
    );

    // Act
    const results = [];
    for (const { type, value, before, after } of cases) {
      const result = await db.knex.raw<{ rows: { before: boolean; after: boolean }[] }>(
        `select (${before}) as before, (${after}) as after from (select cast(? as ${type}) as v) t`,
        [value],
      );
      results.push({ type, value, ...result.rows[0] });
    }

    // Assert
    const disagreements = results.filter((result) => result.before !== result.after);
    expect(disagreements).toEqual([]);
    expect(results.filter((result) => result.after).length).toBeGreaterThanOrEqual(9);
  });

  it('when the database is upgraded, then each digest check keeps its rows and its name, refuses what it refused, and no longer repeats {64}', async () => {
    // Arrange: a database as it was before the migration, holding a certificate.
    db = await openTestDatabase(backend, { migrate: false });
    const { knex } = db;
    await knex.migrate.latest({ migrationSource: before0027 });
    const user = await givenUser(knex);
    await knex('certificates').insert(certificateRow(user.id));

    // Act
    await migrate(knex);

    // Assert
    const definitions = await knex.raw<{ rows: { name: string; definition: string }[] }>(
      `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
        where contype = 'c' and conname = any(?) and convalidated
          and connamespace = current_schema()::regnamespace`,
      [DIGEST_CHECKS.map((check) => check.constraint)],
    );
    expect(definitions.rows.map((row) => row.name).sort()).toEqual(
      DIGEST_CHECKS.map((check) => check.constraint).sort(),
    );
    expect(definitions.rows.filter((row) => row.definition.includes('{64}'))).toEqual([]);
    expect(
      await violationOf(
        knex('certificates').insert(certificateRow(user.id, { hash: `${DIGEST.slice(1)}G` })),
      ),
    ).toEqual({ kind: 'check', constraint: 'certificates_hash_check' });
    expect(
      await violationOf(
        knex('anchor_records').insert({
          network_id: '31337',
          kind: 'evidence',
          record_key: `0X${DIGEST}`,
          hash: DIGEST,
        }),
      ),
    ).toEqual({ kind: 'check', constraint: 'anchor_records_record_key_check' });
  });

  it('when the migration is rolled back, then the regular expressions are back and still hold', async () => {
    // Arrange
    db = await openTestDatabase(backend);
    const { knex } = db;

    // Act
    await knex.migrate.down({ migrationSource });

    // Assert
    const definitions = await knex.raw<{ rows: { definition: string }[] }>(
      `select pg_get_constraintdef(oid) as definition from pg_constraint
        where contype = 'c' and conname = any(?)
          and connamespace = current_schema()::regnamespace`,
      [DIGEST_CHECKS.map((check) => check.constraint)],
    );
    expect(definitions.rows).toHaveLength(DIGEST_CHECKS.length);
    expect(definitions.rows.every((row) => row.definition.includes('{64}'))).toBe(true);
  });
});
