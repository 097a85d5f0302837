// @trustpoint/test-kit/webhooks: a webhook worker that retries at a test's pace.
export { startQuickWebhookWorker } from './quick-webhook-worker.js';
