import { prepared, type Queryable } from '../queryable.js';

/**
 * The shared rate-limit counters (`rate_limit_counts`, an unlogged table): one row per key, its
 * fixed window (`windowStart`, ms since the epoch, as the caller aligns it) and the hits counted
 * in it.
 */
export interface RateLimitHits {
  key: string;
  windowStart: number;
  hits: number;
}

/** The hits counted for the key in this window; undefined when none (or another window's). */
export async function findRateLimitHits(
  db: Queryable,
  key: string,
  windowStart: number,
): Promise<number | undefined> {
  const row = await db('rate_limit_counts')
    .where({ key, window_start: windowStart })
    .first<{ hits: number } | undefined>('hits');
  return row?.hits;
}

/**
 * Adds the hits of each key to its count, in one upsert that answers the new counts: a key
 * whose row holds another window starts again at the hits given. Pass the keys sorted, so that
 * processes never lock rows in opposite orders. The new count per key.
 */
export async function countRateLimitHits(
  db: Queryable,
  counts: readonly RateLimitHits[],
): Promise<Map<string, number>> {
  if (counts.length === 0) return new Map();
  // The counts as one JSON parameter, in the order given: the same text for any number of keys.
  const result = await prepared(
    db.raw<{ rows: { key: string; hits: number }[] }>(
      `insert into rate_limit_counts as counted (key, window_start, hits)
       select c.key, c.window_start, c.hits
         from rows from (json_to_recordset(?::json)
              as (key text, window_start bigint, hits int)) with ordinality as c
        order by c.ordinality
       on conflict (key) do update set
         hits = case when counted.window_start = excluded.window_start
           then counted.hits + excluded.hits else excluded.hits end,
         window_start = excluded.window_start
       returning key, hits`,
      [
        JSON.stringify(
          counts.map((count) => ({
            key: count.key,
            window_start: count.windowStart,
            hits: count.hits,
          })),
        ),
      ],
    ),
    'rate-limit-count',
  );
  return new Map(result.rows.map((row) => [row.key, row.hits]));
}

/** Takes one hit back from the key's count in this window, never below zero. */
export async function uncountRateLimitHit(
  db: Queryable,
  key: string,
  windowStart: number,
): Promise<void> {
  await db('rate_limit_counts')
    .where({ key, window_start: windowStart })
    .where('hits', '>', 0)
    .decrement('hits', 1);
}

/** Forgets the key's count. */
export async function deleteRateLimitKey(db: Queryable, key: string): Promise<void> {
  await db('rate_limit_counts').where({ key }).delete();
}

/** Deletes the counts of windows that started before `windowStart` (keys no longer seen). */
export async function deleteRateLimitWindowsBefore(
  db: Queryable,
  windowStart: number,
): Promise<void> {
  await db('rate_limit_counts').where('window_start', '<', windowStart).delete();
}
