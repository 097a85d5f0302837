import type { Knex } from 'knex';
import pino from 'pino';
import { WebhookWorker, type WebhookSettings } from '@trustpoint/webhooks';

/**
 * A started worker that retries within a test's patience: 50-200 ms backoff instead of minutes to
 * a day, polling every 20 ms, silent. Stop it with `stop()`.
 */
export function startQuickWebhookWorker(knex: Knex, webhooks: WebhookSettings): WebhookWorker {
  const worker = new WebhookWorker({
    knex,
    sealer: webhooks.sealer,
    addressPolicy: webhooks.addressPolicy,
    logger: pino({ level: 'silent' }),
    retry: { initialDelayMs: 50, maxDelayMs: 200 },
    pollIntervalMs: 20,
    requestTimeoutMs: 2_000,
    leaseMs: 5_000,
  });
  worker.start();
  return worker;
}
