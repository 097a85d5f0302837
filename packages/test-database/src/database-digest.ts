import type { Queryable } from '@trustpoint/db';

/**
 * Tables the service writes on its own, whatever the requests: network health probes, the anchor
 * engine's batches, transactions and nonces, webhook events and their delivery (written when
 * records settle), and the migrations' bookkeeping.
 */
const BACKGROUND_TABLES = [
  'network_health',
  'anchor_batches',
  'anchor_transactions',
  'signer_nonces',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'knex_migrations',
  'knex_migrations_lock',
];

/** Columns a refused request may touch by design: an API key's last use is recorded when checked. */
const BACKGROUND_COLUMNS = ['last_used_at'];

/**
 * A digest of every row of every table of the database's current schema (but those above), one
 * MD5 per table: equal before and after a request only when the request changed nothing a caller
 * owns. Wrong PINs are counted on purpose (`pin_failures`), so that table is in the digest too.
 */
export async function databaseDigest(knex: Queryable): Promise<string> {
  const listed = await knex.raw<{ rows: { name: string }[] }>(
    `select table_name as name from information_schema.tables
       where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
  );
  const tables = listed.rows
    .map((row) => row.name)
    .filter((name) => !BACKGROUND_TABLES.includes(name));
  const dropped = BACKGROUND_COLUMNS.map((column) => ` - '${column}'`).join('');
  const parts = tables.map(
    (name) =>
      `select '${name}' as name, count(*)::text || ':' || coalesce(md5(string_agg((to_jsonb(t)${dropped})::text, '|' order by (to_jsonb(t)${dropped})::text)), '') as digest from "${name}" t`,
  );
  const { rows } = await knex.raw<{ rows: { name: string; digest: string }[] }>(
    parts.join(' union all '),
  );
  return rows
    .map((row) => `${row.name}=${row.digest}`)
    .sort()
    .join(' ');
}
