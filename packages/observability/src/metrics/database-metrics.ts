import { connectionPoolStats } from '@trustpoint/db';
import type { Knex } from 'knex';
import { Gauge, type Registry } from 'prom-client';
import { METRICS_PREFIX } from './metrics-registry.js';

/**
 * The pool of this process's database connections at scrape time: in use, idle, requests waiting
 * for one, and its size. Several pools (the anchoring thread has its own) are told apart by `pool`.
 */
export function databasePoolMetrics(registry: Registry, knex: Knex, pool = 'requests'): void {
  new Gauge({
    name: `${METRICS_PREFIX}db_pool_connections`,
    help: 'Database pool connections by state: used, free, pending (requests waiting for one), max',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      const current = connectionPoolStats(knex);
      this.set({ pool, state: 'used' }, current.used);
      this.set({ pool, state: 'free' }, current.free);
      this.set({ pool, state: 'pending' }, current.pending);
      this.set({ pool, state: 'max' }, current.max);
    },
  });
}
