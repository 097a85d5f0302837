import type { Queryable } from '../queryable.js';
import { lockUser } from './users-repository.js';
import type { WebhookEventType } from './webhook-event-types.js';

/** A registered endpoint, without its secret. */
export interface WebhookEndpoint {
  id: string;
  userId: string;
  url: string;
  description: string;
  /** The types it receives; null for every type. */
  events: WebhookEventType[] | null;
  createdAt: Date;
}

interface EndpointRow {
  id: string;
  user_id: string;
  url: string;
  description: string;
  event_types: WebhookEventType[] | null;
  created_at: Date;
}

const COLUMNS = ['id', 'user_id', 'url', 'description', 'event_types', 'created_at'] as const;

function fromRow(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    description: row.description,
    events: row.event_types,
    createdAt: row.created_at,
  };
}

export interface NewWebhookEndpoint {
  id: string;
  userId: string;
  url: string;
  description: string;
  events: readonly WebhookEventType[] | null;
  secretSealed: string;
}

/**
 * Inserts the endpoint unless the user already has `maxPerUser`; undefined then. The user's row
 * is locked first, so concurrent creations cannot both pass the count.
 */
export async function insertWebhookEndpointWithin(
  db: Queryable,
  endpoint: NewWebhookEndpoint,
  maxPerUser: number,
): Promise<WebhookEndpoint | undefined> {
  return db.transaction(async (trx) => {
    await lockUser(trx, endpoint.userId);
    const [counted] = await trx('webhook_endpoints')
      .where({ user_id: endpoint.userId })
      .count<{ count: number | string }[]>({ count: '*' });
    if (Number(counted?.count ?? 0) >= maxPerUser) return undefined;
    const [row] = await trx('webhook_endpoints')
      .insert({
        id: endpoint.id,
        user_id: endpoint.userId,
        url: endpoint.url,
        description: endpoint.description,
        event_types: endpoint.events === null ? null : JSON.stringify(endpoint.events),
        secret_sealed: endpoint.secretSealed,
      })
      .returning<EndpointRow[]>([...COLUMNS]);
    if (row === undefined) throw new Error('insert returned no row');
    return fromRow(row);
  });
}

/** The user's endpoints, oldest first. */
export async function listWebhookEndpoints(
  db: Queryable,
  userId: string,
): Promise<WebhookEndpoint[]> {
  const rows = await db('webhook_endpoints')
    .where({ user_id: userId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select<EndpointRow[]>([...COLUMNS]);
  return rows.map(fromRow);
}

/** The user's endpoint; undefined for an unknown id or someone else's. */
export async function findWebhookEndpoint(
  db: Queryable,
  userId: string,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  const row = await db('webhook_endpoints')
    .where({ id, user_id: userId })
    .first<EndpointRow | undefined>([...COLUMNS]);
  return row === undefined ? undefined : fromRow(row);
}

/** The user's endpoint with its sealed secret (to answer its creation again), if any. */
export async function findWebhookEndpointWithSecret(
  db: Queryable,
  userId: string,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secretSealed: string } | undefined> {
  const row = await db('webhook_endpoints')
    .where({ id, user_id: userId })
    .first<(EndpointRow & { secret_sealed: string }) | undefined>([...COLUMNS, 'secret_sealed']);
  return row === undefined
    ? undefined
    : { endpoint: fromRow(row), secretSealed: row.secret_sealed };
}

/** Deletes the user's endpoint with its deliveries and log; false when there was none. */
export async function deleteWebhookEndpoint(
  db: Queryable,
  userId: string,
  id: string,
): Promise<boolean> {
  return (await db('webhook_endpoints').where({ id, user_id: userId }).delete()) > 0;
}

export interface WebhookDeliveryAttempt {
  eventId: string;
  eventType: WebhookEventType;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  deliveryStatus: 'pending' | 'delivered' | 'failed';
}

/** The endpoint's last attempts, newest first. */
export async function listWebhookAttempts(
  db: Queryable,
  endpointId: string,
  limit: number,
): Promise<WebhookDeliveryAttempt[]> {
  const rows = await db({ a: 'webhook_attempts' })
    .join({ d: 'webhook_deliveries' }, 'd.id', 'a.delivery_id')
    .join({ e: 'webhook_events' }, 'e.id', 'd.event_id')
    .where('a.endpoint_id', endpointId)
    .orderBy('a.id', 'desc')
    .limit(limit)
    .select<
      {
        event_id: string;
        type: WebhookEventType;
        attempt: number;
        attempted_at: Date;
        status_code: number | null;
        error: string | null;
        duration_ms: number;
        status: WebhookDeliveryAttempt['deliveryStatus'];
      }[]
    >(
      'd.event_id',
      'e.type',
      'a.attempt',
      'a.attempted_at',
      'a.status_code',
      'a.error',
      'a.duration_ms',
      'd.status',
    );
  return rows.map((row) => ({
    eventId: row.event_id,
    eventType: row.type,
    attempt: row.attempt,
    attemptedAt: row.attempted_at,
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    deliveryStatus: row.status,
  }));
}

/**
 * Delivers the event to the endpoint again, as soon as a worker is free, with a fresh day of
 * retries. The event must be the endpoint owner's (false otherwise); an event the endpoint never
 * received (it was added later, or filters the type out) is delivered too: the owner asked.
 */
export async function scheduleWebhookRedelivery(
  db: Queryable,
  endpoint: Pick<WebhookEndpoint, 'id' | 'userId'>,
  eventId: string,
): Promise<boolean> {
  const event = await db('webhook_events')
    .where({ id: eventId, user_id: endpoint.userId })
    .first<{ id: string } | undefined>('id');
  if (event === undefined) return false;
  await db('webhook_deliveries')
    .insert({
      event_id: eventId,
      endpoint_id: endpoint.id,
      status: 'pending',
      // The database's clock, the one the worker compares with.
      next_attempt_at: db.raw('clock_timestamp()'),
      retry_from: db.raw('clock_timestamp()'),
    })
    .onConflict(['event_id', 'endpoint_id'])
    .merge({
      status: 'pending',
      next_attempt_at: db.raw('clock_timestamp()'),
      retry_from: db.raw('clock_timestamp()'),
      // Counted on: an attempt still in flight when the owner asks records its outcome only while
      // the count is the one it took, so its "delivered" cannot overwrite this redelivery.
      attempts: db.raw('webhook_deliveries.attempts + 1'),
    });
  return true;
}
