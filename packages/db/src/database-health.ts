import type { Knex } from 'knex';

/** One round trip through the pool: fails when the pool is closed or the server does not answer. */
export async function pingDatabase(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}

/** The connections of a database's pool: in use, idle, requests waiting for one, and its size. */
export interface ConnectionPoolStats {
  used: number;
  free: number;
  pending: number;
  max: number;
}

/** What knex's pool (tarn) answers; absent members read as 0. */
interface TarnPool {
  numUsed?: () => number;
  numFree?: () => number;
  numPendingAcquires?: () => number;
  max?: number;
}

/** The pool's state now (all zero when the pool is not open). */
export function connectionPoolStats(knex: Knex): ConnectionPoolStats {
  const pool = (knex.client as { pool?: TarnPool }).pool;
  return {
    used: pool?.numUsed?.() ?? 0,
    free: pool?.numFree?.() ?? 0,
    pending: pool?.numPendingAcquires?.() ?? 0,
    max: pool?.max ?? 0,
  };
}
