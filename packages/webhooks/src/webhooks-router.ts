import { randomUUID } from 'node:crypto';
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  findWebhookEndpointWithSecret,
  insertWebhookEndpointWithin,
  listWebhookAttempts,
  listWebhookEndpoints,
  recordAudit,
  scheduleWebhookRedelivery,
  type NewAuditEntry,
  type Queryable,
  type WebhookDeliveryAttempt,
  type WebhookEndpoint,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import {
  authenticate,
  requireScope,
  commitIdempotentChange,
  currentUser,
  idempotencyClaimOf,
  idempotent,
  refusedAddressOf,
  requestIdOf,
  sendSuccess,
  validate,
  type AuthenticateOptions,
  type IdempotencyKeys,
} from '@trustpoint/http';
import { Router, type Response } from 'express';
import { newEndpointSecret } from './endpoint-secret.js';
import {
  attemptsQuerySchema,
  createEndpointBodySchema,
  endpointIdParamsSchema,
  redeliveryParamsSchema,
} from './webhook-schemas.js';
import { DEFAULT_MAX_ENDPOINTS_PER_USER, type WebhookSettings } from './webhook-settings.js';

export const WEBHOOK_ENDPOINTS_PATH = '/webhooks/endpoints';

function endpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    createdAt: endpoint.createdAt.toISOString(),
  };
}

function attemptView(attempt: WebhookDeliveryAttempt) {
  return { ...attempt, attemptedAt: attempt.attemptedAt.toISOString() };
}

/** The audit entry of a change the caller made to one of their endpoints. */
function endpointAudit(
  res: Response,
  action: 'webhook-endpoint.create' | 'webhook-endpoint.delete',
  endpoint: WebhookEndpoint,
): NewAuditEntry {
  return {
    actorId: currentUser(res).id,
    requestId: requestIdOf(res),
    action,
    target: `webhook-endpoint:${endpoint.id}`,
    changes: { url: endpoint.url, events: endpoint.events },
  };
}

function refused(field: string, error: string): DomainError {
  return new DomainError('validation', { detail: error, errors: [{ field, error }] });
}

/**
 * The webhook routes, the same on both APIs (one table, so a user sees the same endpoints from
 * either): create (the secret shown once), list, read, delete, the delivery log and redelivery.
 * Another user's endpoint is a 404, as one that does not exist.
 */
export function webhooksRouter(
  knex: Queryable,
  settings: WebhookSettings,
  auth: AuthenticateOptions,
  /** `Idempotency-Key` support on endpoint creation, when given. */
  idempotency?: IdempotencyKeys,
): Router {
  const router = Router();
  const maxEndpoints = settings.maxEndpointsPerUser ?? DEFAULT_MAX_ENDPOINTS_PER_USER;
  // Every operation needs the `webhooks` scope, reads included.
  router.use(WEBHOOK_ENDPOINTS_PATH, authenticate(auth), requireScope('webhooks'));

  const ownEndpoint = async (userId: string, id: string) => {
    const endpoint = await findWebhookEndpoint(knex, userId, id);
    if (endpoint === undefined) throw new DomainError('notFound', { detail: 'no such endpoint' });
    return endpoint;
  };

  const answerCreated = (res: Response, endpoint: WebhookEndpoint, secret: string) => {
    sendSuccess(res, 201, 'Webhook endpoint created: keep its secret, it is not shown again', {
      ...endpointView(endpoint),
      secret,
    });
  };
  // The secret is kept sealed: a creation whose answer was lost is answered again from the row.
  const creation =
    idempotency === undefined
      ? []
      : [
          idempotent(idempotency, {
            async recover(id, _req, res) {
              const found = await findWebhookEndpointWithSecret(knex, currentUser(res).id, id);
              if (found === undefined) return false;
              answerCreated(res, found.endpoint, settings.sealer.open(found.secretSealed));
              return true;
            },
          }),
        ];
  router.post(WEBHOOK_ENDPOINTS_PATH, ...creation, async (req, res) => {
    const body = validate(createEndpointBodySchema, req.body, 'body');
    const url = new URL(body.url);
    if (url.username !== '' || url.password !== '') {
      throw refused('body.url', 'Credentials in the URL are not allowed');
    }
    // Port 0 is no port a connection can reach: every delivery would fail.
    if (url.port === '0') {
      throw refused(
        'body.url',
        "Port 0 cannot be connected to: give a port from 1 to 65535, or none for the scheme's own",
      );
    }
    const address = await refusedAddressOf(url.hostname, settings.addressPolicy);
    if (address !== undefined) {
      throw refused(
        'body.url',
        'The URL leads to a private, loopback, link-local or otherwise non-public address, which is not allowed',
      );
    }
    const secret = newEndpointSecret();
    const endpoint = await knex.transaction(async (trx) => {
      const inserted = await insertWebhookEndpointWithin(
        trx,
        {
          id: randomUUID(),
          userId: currentUser(res).id,
          url: url.href,
          description: body.description ?? '',
          events: body.events ?? null,
          secretSealed: settings.sealer.seal(secret),
        },
        maxEndpoints,
      );
      if (inserted !== undefined) {
        await commitIdempotentChange(trx, idempotencyClaimOf(res), inserted.id);
        await recordAudit(trx, [endpointAudit(res, 'webhook-endpoint.create', inserted)]);
      }
      return inserted;
    });
    if (endpoint === undefined) {
      throw refused('body', `A user may have at most ${String(maxEndpoints)} webhook endpoints`);
    }
    answerCreated(res, endpoint, secret);
  });

  router.get(WEBHOOK_ENDPOINTS_PATH, async (_req, res) => {
    const endpoints = await listWebhookEndpoints(knex, currentUser(res).id);
    sendSuccess(res, 200, `Retrieved ${String(endpoints.length)} webhook endpoint(s)`, {
      endpoints: endpoints.map(endpointView),
    });
  });

  router.get(`${WEBHOOK_ENDPOINTS_PATH}/:id`, async (req, res) => {
    const { id } = validate(endpointIdParamsSchema, req.params, 'path');
    const endpoint = await ownEndpoint(currentUser(res).id, id);
    sendSuccess(res, 200, 'Webhook endpoint retrieved', endpointView(endpoint));
  });

  router.delete(`${WEBHOOK_ENDPOINTS_PATH}/:id`, async (req, res) => {
    const { id } = validate(endpointIdParamsSchema, req.params, 'path');
    const endpoint = await ownEndpoint(currentUser(res).id, id);
    await knex.transaction(async (trx) => {
      if (!(await deleteWebhookEndpoint(trx, endpoint.userId, endpoint.id))) {
        throw new DomainError('notFound', { detail: 'endpoint deleted meanwhile' });
      }
      await recordAudit(trx, [endpointAudit(res, 'webhook-endpoint.delete', endpoint)]);
    });
    sendSuccess(res, 200, 'Webhook endpoint deleted', endpointView(endpoint));
  });

  router.get(`${WEBHOOK_ENDPOINTS_PATH}/:id/attempts`, async (req, res) => {
    const { id } = validate(endpointIdParamsSchema, req.params, 'path');
    const { limit } = validate(attemptsQuerySchema, req.query, 'query');
    const endpoint = await ownEndpoint(currentUser(res).id, id);
    const attempts = await listWebhookAttempts(knex, endpoint.id, limit);
    sendSuccess(res, 200, `Retrieved ${String(attempts.length)} delivery attempt(s)`, {
      attempts: attempts.map(attemptView),
    });
  });

  router.post(`${WEBHOOK_ENDPOINTS_PATH}/:id/events/:eventId/redeliver`, async (req, res) => {
    const { id, eventId } = validate(redeliveryParamsSchema, req.params, 'path');
    const endpoint = await ownEndpoint(currentUser(res).id, id);
    if (!(await scheduleWebhookRedelivery(knex, endpoint, eventId))) {
      throw new DomainError('notFound', { detail: 'no such event for this user' });
    }
    sendSuccess(res, 202, 'Redelivery scheduled', {
      endpointId: endpoint.id,
      eventId,
      status: 'pending' as const,
    });
  });

  return router;
}
