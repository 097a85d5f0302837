import type { Knex } from 'knex';

import type { Queryable } from './queryable.js';

/** An insert or update built (by a repository) and not sent yet: one part of `writeTogether`. */
export type Write = Knex.QueryBuilder | Knex.Raw;

/**
 * Sends independent writes of one transaction as a single statement (each a data-modifying `WITH`
 * part), so that a group commit pays one round trip for them instead of one each. Under load a
 * round trip costs a turn of the service's busy event loop, not only the network.
 *
 * The writes must not depend on one another: PostgreSQL runs them on one snapshot, in an order of
 * its own, so none sees another's rows. Any that fails fails the whole statement, as it would
 * have failed its transaction alone. `undefined` stands for a write with nothing to do. A write's
 * SQL must hold no literal `?` (it is sent again as a raw statement, where `?` is a binding).
 */
export async function writeTogether(
  db: Queryable,
  writes: readonly (Write | undefined)[],
): Promise<void> {
  const parts = writes.filter((write): write is Write => write !== undefined);
  if (parts.length === 0) return;
  await db.raw(...together(parts, 'select 1'));
}

/**
 * `writeTogether` around a statement whose rows the caller needs (an insert `returning` what it
 * stored): the writes run in the same statement, and its rows are answered.
 */
export async function writeAlongside<Row>(
  db: Queryable,
  main: Write,
  writes: readonly (Write | undefined)[],
): Promise<Row[]> {
  const parts = writes.filter((write): write is Write => write !== undefined);
  const compiled = main.toSQL();
  const [sql, bindings] = together(parts, compiled.sql, compiled.bindings);
  const result = await db.raw<{ rows: Row[] }>(sql, bindings);
  return result.rows;
}

function together(
  parts: readonly Write[],
  mainSql: string,
  mainBindings: readonly unknown[] = [],
): [string, Knex.RawBinding[]] {
  const compiled = parts.map((part) => part.toSQL());
  const withParts = compiled.map(({ sql }, index) => `write_${String(index)} as (${sql})`);
  return [
    withParts.length === 0 ? mainSql : `with ${withParts.join(', ')} ${mainSql}`,
    [...compiled.flatMap(({ bindings }) => bindings), ...mainBindings] as Knex.RawBinding[],
  ];
}
