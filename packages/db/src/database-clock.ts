import type { Queryable } from './queryable.js';

/**
 * The database's clock, `clock_timestamp()` (the time of the call, not of the transaction's
 * start), plus `offsetSeconds`: for a decision made in JavaScript against times the database
 * writes with that clock (the outbox triggers, the webhook deliveries), so that the process's
 * clock, and its skew on another host, never mixes with it.
 */
export async function readDatabaseClock(db: Queryable, offsetSeconds = 0): Promise<Date> {
  const clock = await db.raw<{ rows: { now: Date }[] }>(
    'select clock_timestamp() + make_interval(secs => ?) as now',
    [offsetSeconds],
  );
  return clock.rows[0]?.now ?? new Date();
}
