import type { Knex } from 'knex';

/** What repositories run on: the database itself, or the caller's transaction. */
export type Queryable = Knex | Knex.Transaction;

/**
 * Names one of the statements that run for every request or batch (a group commit, the caller
 * lookup, the rate limit's count, the anchorer's claim and settlement), so that PostgreSQL parses
 * and plans it once per connection, as a prepared statement, rather than at every execution: at
 * 1,200 creations a second, parsing and planning took a third of PostgreSQL's time
 * (bench/results/prepared-statements-2026-11-28.md). The name must belong to one text, so a
 * statement named here has the same text whatever its input (lists go in as one JSON parameter),
 * and a variant of the text takes a name of its own. Its answer names its columns (no `*`): a
 * column added by a migration while a process keeps the statement prepared would change the
 * answer's shape, which PostgreSQL refuses for a prepared statement. PGlite parses every
 * statement anyway (the name is dropped there). Behind PgBouncer in transaction mode, named
 * statements need PgBouncer 1.21 or later with `max_prepared_statements` above 0.
 */
export function prepared<Statement extends Knex.Raw | Knex.QueryBuilder>(
  statement: Statement,
  name: string,
): Statement {
  return statement.options({ name: `trustpoint-${name}` }) as Statement;
}
