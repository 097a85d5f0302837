import { WEBHOOK_EVENT_TYPES } from '@trustpoint/db';
import { refuseUnstorableText, successEnvelopeSchema, textSchema } from '@trustpoint/domain';
import { z } from 'zod';

/** Longest endpoint URL, in characters. */
export const MAX_ENDPOINT_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).meta({
  id: 'WebhookEventType',
  description: 'What happened: a trustpoint or evidence anchored or failed, a certificate revoked',
});

export const createEndpointBodySchema = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: 'Must be an http or https URL' })
      // Its own message: the URL's `error` above is the message of every check of this schema.
      .max(MAX_ENDPOINT_URL_LENGTH, {
        error: `At most ${String(MAX_ENDPOINT_URL_LENGTH)} characters`,
      })
      .check(refuseUnstorableText)
      .meta({
        description: 'Where events are POSTed; a public address',
        example: 'https://example.org/hooks',
      }),
    events: z
      .array(webhookEventTypeSchema)
      .min(1)
      .refine((types) => new Set(types).size === types.length, 'Each event type once')
      .optional()
      .meta({ description: 'The event types to receive; every type when absent' }),
    description: textSchema().max(MAX_DESCRIPTION_LENGTH).optional(),
  })
  .meta({ id: 'CreateWebhookEndpointBody' });

export const endpointIdParamsSchema = z.object({
  id: z.uuid().meta({ description: 'The endpoint id' }),
});

export const redeliveryParamsSchema = z.object({
  id: z.uuid().meta({ description: 'The endpoint id' }),
  eventId: z
    .string()
    .regex(/^msg_[0-9a-f]{32}$/)
    .meta({ description: 'The event id (`webhook-id` of its deliveries)' }),
});

export const attemptsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50).meta({
    description: 'How many attempts, newest first (at most 100)',
  }),
});

export const webhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string(),
    events: z.array(webhookEventTypeSchema).nullable().meta({
      description: 'The event types it receives; null for every type',
    }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const createdEndpointSchema = webhookEndpointSchema
  .extend({
    secret: z
      .string()
      .regex(/^whsec_/)
      .meta({
        description:
          'The signing secret (Standard Webhooks), shown only in this answer: keep it to verify `webhook-signature`',
      }),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

export const endpointListSchema = z
  .object({ endpoints: z.array(webhookEndpointSchema) })
  .meta({ id: 'WebhookEndpointList' });

export const deliveryAttemptSchema = z
  .object({
    eventId: z.string(),
    eventType: webhookEventTypeSchema,
    attempt: z.number().int().meta({ description: '1 for the first attempt of this delivery' }),
    attemptedAt: z.iso.datetime(),
    statusCode: z.number().int().nullable().meta({
      description: "The endpoint's HTTP status; null when no answer came (see `error`)",
    }),
    error: z.string().nullable().meta({ description: 'Why no answer came, or why it was refused' }),
    durationMs: z.number().int(),
    deliveryStatus: z.enum(['pending', 'delivered', 'failed']).meta({
      description: 'Where the delivery of this event stands now',
    }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliveryAttemptListSchema = z
  .object({ attempts: z.array(deliveryAttemptSchema) })
  .meta({ id: 'WebhookDeliveryAttemptList' });

export const redeliverySchema = z
  .object({
    endpointId: z.uuid(),
    eventId: z.string(),
    status: z.literal('pending'),
  })
  .meta({ id: 'WebhookRedelivery' });

export const endpointResponse = successEnvelopeSchema(webhookEndpointSchema).meta({
  id: 'WebhookEndpointResponse',
});
export const createdEndpointResponse = successEnvelopeSchema(createdEndpointSchema).meta({
  id: 'CreatedWebhookEndpointResponse',
});
export const endpointListResponse = successEnvelopeSchema(endpointListSchema).meta({
  id: 'WebhookEndpointListResponse',
});
export const deliveryAttemptListResponse = successEnvelopeSchema(deliveryAttemptListSchema).meta({
  id: 'WebhookDeliveryAttemptListResponse',
});
export const redeliveryResponse = successEnvelopeSchema(redeliverySchema).meta({
  id: 'WebhookRedeliveryResponse',
});
