import type { WebhookSettings } from '@trustpoint/webhooks';
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll } from 'vitest';

import type { CheckedAgent } from '../openapi/checked-request.js';
import { startQuickWebhookWorker } from '../webhooks/quick-webhook-worker.js';
import { webhookEndpoints, type WebhookEndpoints } from '../webhooks/webhook-endpoints.js';

/** What delivering an API's webhooks needs of it, once its suite's `beforeAll` started it. */
export interface WebhookDeliveryWorld {
  /** A request to the API, checked against its document. */
  agent: CheckedAgent;
  knex: Knex;
  webhooks: WebhookSettings;
}

/**
 * Delivers the webhooks of the API the suite started (declare it after the `beforeAll` that
 * starts the API): a worker retrying at a test's pace from the suite's start to its end, and
 * receivers with endpoints at them, closed after each test.
 */
export function deliveringWebhooks(
  api: () => WebhookDeliveryWorld,
  basePath: string,
): Pick<WebhookEndpoints, 'endpointFor'> {
  let stop: (() => Promise<void>) | undefined;
  beforeAll(() => {
    const { knex, webhooks } = api();
    const worker = startQuickWebhookWorker(knex, webhooks);
    stop = () => worker.stop();
  });
  // After hooks run in the reverse order: the worker stops before the API.
  afterAll(async () => {
    await stop?.();
  });
  const { endpointFor, closeReceivers } = webhookEndpoints(() => api().agent, basePath);
  afterEach(closeReceivers);
  return { endpointFor };
}
