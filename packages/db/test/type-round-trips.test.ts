import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, uniqueId } from './test-data.js';

// Every assertion here is exact, so passing on both backends means both return the same values.
describe.each(testBackends())('type round trips on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  it('when a certificate is stored, then bigint, jsonb, boolean and timestamptz read back as numbers, objects, booleans and Dates', async () => {
    // Arrange
    const user = await givenUser(db.knex);
    const content = { title: 'Deed', tags: ['a', 'b'], nested: { n: 1, ok: true, none: null } };
    const row = certificateRow(user.id, {
      content: JSON.stringify(content),
      issued_on: 1_732_252_800_123,
      expires: Number.MAX_SAFE_INTEGER,
      public: true,
    });
    const before = Date.now();

    // Act
    await db.knex('certificates').insert(row);
    const stored = await db.knex('certificates').where('id', row.id).first<
      | {
          issued_on: unknown;
          expires: unknown;
          revoked_at: unknown;
          content: unknown;
          public: unknown;
          created_at: unknown;
        }
      | undefined
    >('issued_on', 'expires', 'revoked_at', 'content', 'public', 'created_at');

    // Assert
    expect(stored).toMatchObject({
      issued_on: 1_732_252_800_123,
      expires: Number.MAX_SAFE_INTEGER,
      revoked_at: null,
      content,
      public: true,
    });
    expect(stored?.created_at).toBeInstanceOf(Date);
    expect((stored?.created_at as Date).getTime()).toBeGreaterThanOrEqual(before - 60_000);
  });

  it('when rows are counted, then count(*) is a number', async () => {
    // Arrange
    const user = await givenUser(db.knex);
    await db.knex('certificates').insert([certificateRow(user.id), certificateRow(user.id)]);

    // Act
    const result = await db
      .knex('certificates')
      .where('user_id', user.id)
      .count({ n: '*' })
      .first<{ n: unknown } | undefined>();

    // Assert
    expect(result).toEqual({ n: 2 });
  });

  it('when an identity id and a jsonb array are returned, then they are a number and an array', async () => {
    // Arrange
    const networkId = uniqueId('network');

    // Act
    const [row] = await db
      .knex('anchor_batches')
      .insert({
        network_id: networkId,
        kind: 'evidence',
        signer: '0xsigner',
        nonce: 7,
        raw_transaction: '0x',
        transaction_hash: '0xhash',
      })
      .returning<{ id: unknown; nonce: unknown; block_number: unknown }[]>([
        'id',
        'nonce',
        'block_number',
      ]);
    const json = await db.knex.raw<{ rows: { value: unknown }[] }>(
      `select '[1, {"a": "b"}]'::jsonb as value`,
    );

    // Assert
    expect(typeof row?.id).toBe('number');
    expect(row).toMatchObject({ nonce: 7, block_number: null });
    expect(json.rows[0]?.value).toEqual([1, { a: 'b' }]);
  });

  it('when rows are updated or deleted, then both backends return the affected row count', async () => {
    await db.knex.raw('create table counted (id int)');
    await db.knex('counted').insert([{ id: 1 }, { id: 2 }, { id: 3 }]);

    const updated = await db.knex('counted').where('id', '>', 1).update({ id: 9 });
    const deleted = await db.knex('counted').where({ id: 9 }).delete();
    const none = await db.knex('counted').where({ id: 42 }).delete();

    expect([updated, deleted, none]).toEqual([2, 2, 0]);
  });

  it('when an int8 does not fit a JavaScript number, then the query fails instead of rounding', async () => {
    // Arrange
    const sql = 'select 9007199254740993::int8 as value';

    // Act
    const read = db.knex.raw(sql);

    // Assert
    await expect(read).rejects.toThrow(/safe integer range/);
    const next = await db.knex.raw<{ rows: { ok: unknown }[] }>('select 1 as ok');
    expect(next.rows).toEqual([{ ok: 1 }]);
  });
});
