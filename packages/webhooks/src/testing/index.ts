// Test helpers of @trustpoint/webhooks: a real receiver that verifies signatures.
export { startWebhookReceiver } from './webhook-receiver.js';
export type { ReceivedWebhook, WebhookReceiver } from './webhook-receiver.js';
