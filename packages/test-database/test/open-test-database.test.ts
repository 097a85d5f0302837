import { knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { openTestDatabase, testBackends } from '../src/index.js';

const databaseUrl = process.env.DATABASE_URL;

describe('testBackends', () => {
  it('when DATABASE_URL is set, then PostgreSQL runs beside PGlite', () => {
    // Arrange
    const env = { DATABASE_URL: 'postgres://localhost/test' };

    // Act
    const backends = testBackends(env);

    // Assert
    expect(backends).toEqual(['pglite', 'postgres']);
  });

  it('when DATABASE_URL is not set, then only PGlite runs', () => {
    // Arrange
    const env = {};

    // Act
    const backends = testBackends(env);

    // Assert
    expect(backends).toEqual(['pglite']);
  });
});

describe.runIf(databaseUrl)('openTestDatabase on PostgreSQL', () => {
  it('when opened, then it works in its own schema, and close drops that schema', async () => {
    // Arrange
    const observer = knex({ client: 'pg', connection: databaseUrl });
    const schemaExists = async (schema: string | undefined) =>
      (await observer('information_schema.schemata').where('schema_name', schema).first()) !==
      undefined;

    try {
      // Act
      const db = await openTestDatabase('postgres');
      const current = await db.knex.raw<{ rows: { schema: string }[] }>(
        'select current_schema() as schema',
      );
      const existedWhileOpen = await schemaExists(db.schema);
      await db.close();

      // Assert
      expect(current.rows[0]?.schema).toBe(db.schema);
      expect(existedWhileOpen).toBe(true);
      expect(await schemaExists(db.schema)).toBe(false);
    } finally {
      await observer.destroy();
    }
  });
});
