import type { Knex } from 'knex';

export type DatabaseBackend = 'postgres' | 'pglite';

/** An open database: run queries through `knex`, and `close()` it once at shutdown. */
export interface Database {
  readonly knex: Knex;
  readonly backend: DatabaseBackend;
  close(): Promise<void>;
}
