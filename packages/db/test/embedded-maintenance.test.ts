import { afterEach, describe, expect, it } from 'vitest';
import { maintainTables, maintenanceDue, startEmbeddedMaintenance } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest } from './test-data.js';

const RECORDS = 20_000;

/** A certificate with `RECORDS` trustpoints, each on an anchor record of its own, settled. */
async function givenManyTrustpoints(db: TestDatabase): Promise<number[]> {
  const { knex } = db;
  const user = await givenUser(knex);
  const certificate = certificateRow(user.id);
  await knex('certificates').insert(certificate);
  const records = await knex.raw<{ rows: { id: number }[] }>(
    `insert into anchor_records (network_id, kind, trustpoint_type, record_key, hash)
     select '31337', 'trustpoint', 0, '0x' || md5(g::text) || md5(?::text || g),
            md5(?::text || g) || md5(g::text)
       from generate_series(1, ?::int) g
     returning id`,
    [randomDigest(), randomDigest(), RECORDS],
  );
  const ids = records.rows.map((row) => row.id);
  await knex.raw(
    `insert into trustpoints (certificate_id, type, hash, timestamp, network_id, anchor_record_id)
     select ?, 0, r.hash, 1700000000 + r.id, r.network_id, r.id
       from anchor_records r where r.id = any(?::bigint[])`,
    [certificate.id, ids],
  );
  // Each record settled, as a batch leaves them: a dead version of every row.
  await knex.raw(`update anchor_records set status = 'cancelled' where id = any(?::bigint[])`, [
    ids,
  ]);
  return ids;
}

/** The plan of a settlement's look for the trustpoints of some anchor records. */
async function planOfTrustpointsOf(db: TestDatabase, recordIds: number[]): Promise<string> {
  const { rows } = await db.knex.raw<{ rows: { 'QUERY PLAN': string }[] }>(
    `explain select id from trustpoints where anchor_record_id = any(?::bigint[])`,
    [recordIds],
  );
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe('embedded maintenance (autovacuum for PGlite)', () => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('when a table passes autovacuum thresholds, then it is due for vacuum or analyze, and not before', () => {
    const quiet = { table: 't', reltuples: 0, n_dead_tup: 0, n_mod_since_analyze: 0, xid_age: 0 };
    expect(maintenanceDue({ ...quiet, n_mod_since_analyze: 50 })).toBeUndefined();
    expect(maintenanceDue({ ...quiet, n_mod_since_analyze: 51 })).toBe('analyze');
    expect(maintenanceDue({ ...quiet, n_dead_tup: 50 })).toBeUndefined();
    expect(maintenanceDue({ ...quiet, n_dead_tup: 51 })).toBe('vacuum');
    // A large table: shares of its size. Never analysed (-1) counts as empty.
    const large = { ...quiet, reltuples: 1_000_000 };
    expect(maintenanceDue({ ...large, n_dead_tup: 200_000, n_mod_since_analyze: 100_000 })).toBe(
      undefined,
    );
    expect(maintenanceDue({ ...large, n_dead_tup: 200_051 })).toBe('vacuum');
    expect(maintenanceDue({ ...large, n_mod_since_analyze: 100_051 })).toBe('analyze');
    expect(maintenanceDue({ ...large, reltuples: -1, n_mod_since_analyze: 51 })).toBe('analyze');
    // Row ids about to wrap around: vacuumed (frozen) whatever else.
    expect(maintenanceDue({ ...large, xid_age: 200_000_000 })).toBeUndefined();
    expect(maintenanceDue({ ...large, xid_age: 200_000_001 })).toBe('vacuum');
  });

  it('when thousands of rows were written, then a pass vacuums and analyses their tables, the planner finds trustpoints by index, and the next pass has nothing to do', async () => {
    // Arrange
    db = await openTestDatabase('pglite');
    const recordIds = await givenManyTrustpoints(db);

    // Act
    const done = await maintainTables(db.knex);
    const again = await maintainTables(db.knex);

    // Assert
    expect(done).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: 'anchor_records', action: 'vacuum' }),
        expect.objectContaining({ table: 'trustpoints', action: 'analyze' }),
      ]),
    );
    expect(again).toEqual([]);
    const { rows } = await db.knex.raw<{ rows: { relname: string; dead: number; rows: number }[] }>(
      `select s.relname, s.n_dead_tup::int as dead, c.reltuples::int as rows
         from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.relname in ('anchor_records', 'trustpoints') order by s.relname`,
    );
    expect(rows).toEqual([
      { relname: 'anchor_records', dead: 0, rows: RECORDS },
      { relname: 'trustpoints', dead: 0, rows: RECORDS },
    ]);
    const plan = await planOfTrustpointsOf(db, recordIds.slice(0, 200));
    expect(plan).toContain('trustpoints_anchor_record_idx');
    expect(plan).not.toContain('Seq Scan on trustpoints');
  });

  it('when started, then passes run on their own until stopped', async () => {
    // Arrange
    db = await openTestDatabase('pglite');
    await givenManyTrustpoints(db);
    const passes: string[][] = [];

    // Act
    const maintenance = startEmbeddedMaintenance(db.knex, {
      firstAfterMs: 10,
      everyMs: 10,
      onPass: (done) => passes.push(done.map((table) => table.table)),
    });
    await expect.poll(() => passes.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await maintenance.stop();
    const afterStop = passes.length;
    await db.knex('anchor_records').update({ status: 'failed' });
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Assert
    expect(passes[0]).toEqual(expect.arrayContaining(['anchor_records', 'trustpoints']));
    expect(passes.length).toBe(afterStop);
  });
});
