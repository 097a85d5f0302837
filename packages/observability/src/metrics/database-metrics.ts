import type { Knex } from 'knex';
import { Gauge, type Registry } from 'prom-client';
import { METRICS_PREFIX } from './metrics-registry.js';

/** What knex's pool (tarn) answers; absent members read as 0. */
interface PoolStats {
  numUsed?: () => number;
  numFree?: () => number;
  numPendingAcquires?: () => number;
  max?: number;
}

/**
 * The pool of this process's database connections at scrape time: in use, idle, requests waiting
 * for one, and its size. Several pools (the anchoring thread has its own) are told apart by `pool`.
 */
export function databasePoolMetrics(registry: Registry, knex: Knex, pool = 'requests'): void {
  const stats = () => (knex.client as { pool?: PoolStats }).pool;
  new Gauge({
    name: `${METRICS_PREFIX}db_pool_connections`,
    help: 'Database pool connections by state: used, free, pending (requests waiting for one), max',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      const current = stats();
      this.set({ pool, state: 'used' }, current?.numUsed?.() ?? 0);
      this.set({ pool, state: 'free' }, current?.numFree?.() ?? 0);
      this.set({ pool, state: 'pending' }, current?.numPendingAcquires?.() ?? 0);
      this.set({ pool, state: 'max' }, current?.max ?? 0);
    },
  });
}
