import type { Knex } from 'knex';

export type DatabaseBackend = 'postgres' | 'pglite';

/** An open database: run queries through `knex`, and `close()` it once at shutdown. */
export interface Database {
  readonly knex: Knex;
  readonly backend: DatabaseBackend;
  /**
   * Gives back what a busy spell grew in the database's own thread (the embedded engine's heap);
   * absent where the database is elsewhere.
   */
  releaseMemory?(): Promise<void>;
  close(): Promise<void>;
}
