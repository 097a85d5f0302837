import { createDatabase } from '@trustpoint/db';

/** A database created on a PostgreSQL server, and how to drop it again. */
export interface FreshPostgresDatabase {
  /** Its URL: the server's, naming the new database. */
  url: string;
  /** Drops it (closing its connections) and closes the server connection. */
  drop(): Promise<void>;
}

/**
 * A new, empty database of its own on the PostgreSQL server of `serverUrl` (`DATABASE_URL` by
 * default), as a deployment has one: for a whole service run by a test, whose chain is new each
 * time, so that no rows of an earlier chain (nonces above all) are there. Its name starts with
 * `prefix` (lowercase letters and underscores) and ends with the time.
 */
export async function freshPostgresDatabase(
  prefix: string,
  serverUrl = process.env.DATABASE_URL,
): Promise<FreshPostgresDatabase> {
  if (!serverUrl) throw new Error('a PostgreSQL database needs DATABASE_URL');
  const name = `${prefix}_${String(Date.now())}`;
  const server = await createDatabase({ url: serverUrl, migrate: false, poolMax: 1 });
  await server.knex.raw('create database ??', [name]);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await server.knex.raw('drop database if exists ?? with (force)', [name]);
      } finally {
        await server.close();
      }
    },
  };
}
