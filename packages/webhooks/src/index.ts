// Public API of @trustpoint/webhooks: endpoints, events and their signed delivery.

export { newEndpointSecret } from './endpoint-secret.js';
// The endpoints and their delivery log are stored by @trustpoint/db (insertWebhookEndpointWithin,
// listWebhookAttempts, scheduleWebhookRedelivery, ...).
export type { NewWebhookEndpoint, WebhookEndpoint } from '@trustpoint/db';
export { DEFAULT_RETRY_SCHEDULE, retryDelayMs } from './retry-schedule.js';
export type { RetrySchedule } from './retry-schedule.js';
export {
  createSecretSealer,
  deriveIdempotencyAnswerKey,
  deriveWebhookKey,
} from './secret-sealer.js';
export type { SecretSealer } from './secret-sealer.js';
export { sendWebhook } from './send-webhook.js';
export type { SendOutcome } from './send-webhook.js';
export { WEBHOOK_EVENT_TYPES } from '@trustpoint/db';
export type { WebhookEventType } from '@trustpoint/db';
export { MAX_ENDPOINT_URL_LENGTH } from './webhook-schemas.js';
export { DEFAULT_MAX_ENDPOINTS_PER_USER } from './webhook-settings.js';
export type { WebhookSettings } from './webhook-settings.js';
export { WebhookWorker } from './webhook-worker.js';
export type { WebhookAttemptOutcome, WebhookWorkerOptions } from './webhook-worker.js';
export { WEBHOOKS_TAG_DESCRIPTION, webhookPaths } from './webhooks-openapi.js';
export type { WebhookPathsOptions } from './webhooks-openapi.js';
export { WEBHOOK_ENDPOINTS_PATH, webhooksRouter } from './webhooks-router.js';
