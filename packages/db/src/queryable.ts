import type { Knex } from 'knex';

/** What repositories run on: the database itself, or the caller's transaction. */
export type Queryable = Knex | Knex.Transaction;
