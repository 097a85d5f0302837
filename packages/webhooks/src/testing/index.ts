// Test helpers of @trustpoint/webhooks: a real receiver that verifies signatures, and a worker
// that retries at a test's pace.
export { startQuickWebhookWorker } from './quick-webhook-worker.js';
export { startWebhookReceiver } from './webhook-receiver.js';
export type { ReceivedWebhook, WebhookReceiver } from './webhook-receiver.js';
