/** The events a webhook endpoint can be told of (written by the triggers of migration 0011). */
export const WEBHOOK_EVENT_TYPES = [
  'trustpoint.anchored',
  'trustpoint.failed',
  'evidence.anchored',
  'evidence.failed',
  'certificate.revoked',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
