// @trustpoint/test-kit/webhooks: a webhook worker that retries at a test's pace, and receivers
// with endpoints at them.
export { startQuickWebhookWorker } from './quick-webhook-worker.js';
export { webhookEndpoints } from './webhook-endpoints.js';
export type { WebhookEndpoints } from './webhook-endpoints.js';
