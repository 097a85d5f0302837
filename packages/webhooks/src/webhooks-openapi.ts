import type { ApiScope, ErrorCode } from '@trustpoint/domain';
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';
import {
  attemptsQuerySchema,
  createdEndpointResponse,
  createEndpointBodySchema,
  deliveryAttemptListResponse,
  endpointIdParamsSchema,
  endpointListResponse,
  endpointResponse,
  redeliveryParamsSchema,
  redeliveryResponse,
} from './webhook-schemas.js';
import { WEBHOOK_ENDPOINTS_PATH } from './webhooks-router.js';

export interface WebhookPathsOptions {
  /** The API's tag for the webhook operations. */
  tag: string;
  /** The bearer security requirement of the API's document. */
  security: oas31.SecurityRequirementObject[];
  /** The API's error responses for these catalogue codes (and 500). */
  errors: (...codes: ErrorCode[]) => ZodOpenApiResponsesObject;
  /** Documents `Idempotency-Key` on the creating operation (the API's `idempotentOperation`). */
  idempotent?: (operation: ZodOpenApiOperationObject) => ZodOpenApiOperationObject;
  /** Documents the scope an operation requires (the API's `scopedOperation`). */
  scoped: (operation: ZodOpenApiOperationObject, scope: ApiScope) => ZodOpenApiOperationObject;
}

export const WEBHOOKS_TAG_DESCRIPTION =
  'Endpoints that receive signed events (Standard Webhooks): trustpoint.anchored, ' +
  'trustpoint.failed, evidence.anchored, evidence.failed, certificate.revoked. The same endpoints ' +
  'from either API.';

const DELIVERY =
  'Each event is POSTed as `{type, timestamp, data}` with the Standard Webhooks headers ' +
  '`webhook-id` (the event id: the same on every retry, for deduplication), `webhook-timestamp` ' +
  'and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret). ' +
  'A 2xx answer delivers it; anything else, a timeout or no connection is retried with ' +
  'exponential backoff for a day. Redirects are not followed.';

/** The webhook operations, for the documents of both APIs. */
export function webhookPaths(options: WebhookPathsOptions): ZodOpenApiPathsObject {
  const auth = ['missingToken', 'expiredToken', 'invalidToken', 'wrongCredentials'] as const;
  // Every operation needs the `webhooks` scope, reads included.
  const operation = (op: ZodOpenApiOperationObject): ZodOpenApiOperationObject =>
    options.scoped({ tags: [options.tag], security: options.security, ...op }, 'webhooks');
  return {
    [WEBHOOK_ENDPOINTS_PATH]: {
      post: (options.idempotent ?? ((op: ZodOpenApiOperationObject) => op))(
        operation({
          operationId: 'createWebhookEndpoint',
          summary: 'Register a webhook endpoint',
          description:
            'The answer carries the signing secret (`whsec_...`), shown only here. The URL must be ' +
            'http or https, without credentials, at a public address (private, loopback and ' +
            'link-local addresses are refused unless the operator allows them), at most 2048 ' +
            'characters; a user has at most a configured number of endpoints (10 by default). ' +
            DELIVERY,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: createEndpointBodySchema } },
          },
          responses: {
            201: {
              description: 'Registered',
              content: { 'application/json': { schema: createdEndpointResponse } },
            },
            ...options.errors('validation', ...auth),
          },
        }),
      ),
      get: operation({
        operationId: 'listWebhookEndpoints',
        summary: "The caller's webhook endpoints",
        responses: {
          200: {
            description: 'The endpoints, oldest first (never their secrets)',
            content: { 'application/json': { schema: endpointListResponse } },
          },
          ...options.errors(...auth),
        },
      }),
    },
    [`${WEBHOOK_ENDPOINTS_PATH}/{id}`]: {
      get: operation({
        operationId: 'getWebhookEndpoint',
        summary: 'One of the caller’s webhook endpoints',
        requestParams: { path: endpointIdParamsSchema },
        responses: {
          200: {
            description: 'The endpoint',
            content: { 'application/json': { schema: endpointResponse } },
          },
          ...options.errors('validation', 'notFound', ...auth),
        },
      }),
      delete: operation({
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: 'Its pending deliveries and its log go with it.',
        requestParams: { path: endpointIdParamsSchema },
        responses: {
          200: {
            description: 'Deleted; the endpoint as it was',
            content: { 'application/json': { schema: endpointResponse } },
          },
          ...options.errors('validation', 'notFound', ...auth),
        },
      }),
    },
    [`${WEBHOOK_ENDPOINTS_PATH}/{id}/attempts`]: {
      get: operation({
        operationId: 'listWebhookDeliveryAttempts',
        summary: 'The delivery log of an endpoint',
        description:
          'Its last delivery attempts, newest first: when, the HTTP status or the error, how long ' +
          'it took, and where the delivery of that event stands now.',
        requestParams: { path: endpointIdParamsSchema, query: attemptsQuerySchema },
        responses: {
          200: {
            description: 'The attempts',
            content: { 'application/json': { schema: deliveryAttemptListResponse } },
          },
          ...options.errors('validation', 'notFound', ...auth),
        },
      }),
    },
    [`${WEBHOOK_ENDPOINTS_PATH}/{id}/events/{eventId}/redeliver`]: {
      post: operation({
        operationId: 'redeliverWebhookEvent',
        summary: 'Deliver an event to an endpoint again',
        description:
          'Any event of the caller (its id is the `webhook-id` of its deliveries and is in the ' +
          'log), delivered or not, even one the endpoint did not receive; it is sent as soon as a ' +
          'worker is free, with a new day of retries.',
        requestParams: { path: redeliveryParamsSchema },
        responses: {
          202: {
            description: 'Scheduled',
            content: { 'application/json': { schema: redeliveryResponse } },
          },
          ...options.errors('validation', 'notFound', ...auth),
        },
      }),
    },
  };
}
