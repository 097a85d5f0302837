import { countPendingWebhookDeliveries } from '@trustpoint/db';
import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRICS_PREFIX } from './metrics-registry.js';

/** What `WebhookWorker`'s `onAttempt` reports (kept structural: no dependency on the worker). */
export interface WebhookAttempt {
  status: 'delivered' | 'pending' | 'failed';
  durationMs: number;
}

/**
 * Webhook delivery series: attempts by this process's worker by outcome and their duration
 * (pass the returned function as `onAttempt`), and the deliveries still pending in the database.
 */
export function webhookMetrics(registry: Registry, knex: Knex): (attempt: WebhookAttempt) => void {
  const attempts = new Counter({
    name: `${METRICS_PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts by outcome: delivered, pending (failed, will be retried), failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${METRICS_PREFIX}webhook_attempt_duration_seconds`,
    help: 'Time of one webhook POST',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: `${METRICS_PREFIX}webhook_deliveries_pending`,
    help: 'Webhook deliveries not yet delivered or given up (read from the database at scrape time)',
    registers: [registry],
    async collect() {
      try {
        this.set(await countPendingWebhookDeliveries(knex));
      } catch {
        // The database does not answer: the series is left out; /readyz says why.
        this.reset();
      }
    },
  });
  return (attempt) => {
    attempts.inc({ outcome: attempt.status });
    duration.observe(attempt.durationMs / 1000);
  };
}
