import type { Queryable } from '@trustpoint/db';

/**
 * What callers' requests create or change, each as a row count and a sum of row hashes in one
 * query: certificates and their trustpoints, assets, shares and evidences, credits and their
 * movements, the anchor queue, API keys, webhook endpoints, users, plans, published files and the
 * audit log. Columns the anchor engine and the webhook worker move on their own (anchoring
 * results, event and delivery rows written by triggers when records settle, a key's last use,
 * wrong-PIN counters) are left out, so two digests differ only when a request changed something.
 */
const PARTS: readonly (readonly [string, string])[] = [
  [
    'certificates',
    `select count(*) || ':' || coalesce(sum(hashtext(concat_ws('|', id, name, description, public, pin_encrypted, external_id, revoked_at, expires))), 0) from certificates`,
  ],
  ['trustpoints', `select count(*)::text from trustpoints`],
  [
    'assets',
    `select count(*) || ':' || coalesce(sum(hashtext(concat_ws('|', id, asset_id, user_id))), 0) from assets`,
  ],
  ['asset_shares', `select count(*)::text from asset_shares`],
  ['evidences', `select count(*)::text from evidences`],
  ['credits', `select count(*) || ':' || coalesce(sum(balance), 0) from credits`],
  ['credit_movements', `select count(*)::text from credit_movements`],
  ['anchor_records', `select count(*)::text from anchor_records`],
  [
    'api_keys',
    `select count(*) || ':' || coalesce(sum(hashtext(concat_ws('|', id, name, expires_at, revoked_at, scope, parent_key_id))), 0) from api_keys`,
  ],
  [
    'webhook_endpoints',
    `select count(*) || ':' || coalesce(sum(hashtext(concat_ws('|', id, url, description, event_types::text))), 0) from webhook_endpoints`,
  ],
  [
    'users',
    `select count(*) || ':' || coalesce(sum(hashtext(concat_ws('|', id, display_name, qualified, plan_id, role, disabled_at))), 0) from users`,
  ],
  [
    'plans',
    `select count(*) || ':' || coalesce(sum(hashtext(concat_ws('|', id, name))), 0) || ':' || (select count(*) from plan_networks) from plans`,
  ],
  ['published_files', `select count(*)::text from published_files`],
  ['audit_log', `select count(*)::text from audit_log`],
];

const QUERY = `select ${PARTS.map(([name, sql]) => `(${sql}) as "${name}"`).join(', ')}`;

/**
 * A digest of the callers' state (see PARTS), e.g. `certificates=3:-1234 trustpoints=3 ...`:
 * equal before and after a request that was refused, when nothing else wrote meanwhile.
 */
export async function callerStateDigest(knex: Queryable): Promise<string> {
  const result: unknown = await knex.raw(QUERY);
  // PostgreSQL (pg) answers `{ rows }`; PGlite through its knex dialect the same.
  const rows = (result as { rows?: Record<string, unknown>[] }).rows ?? [];
  const row = rows[0] ?? {};
  return PARTS.map(([name]) => `${name}=${String(row[name])}`).join(' ');
}
