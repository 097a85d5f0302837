import type { Queryable } from '../queryable.js';

/** Webhook deliveries neither delivered nor given up yet. */
export async function countPendingWebhookDeliveries(db: Queryable): Promise<number> {
  const row = await db('webhook_deliveries')
    .where('status', 'pending')
    .first<{ count: string | number } | undefined>(db.raw('count(*) as count'));
  return Number(row?.count ?? 0);
}

/**
 * A delivery a worker has taken, with what it needs to send it: the event and the endpoint's
 * address and sealed secret. `attempts` is the count the claim took; the outcome is recorded only
 * while it is still the delivery's (`recordWebhookDeliveryAttempt`).
 */
export interface ClaimedWebhookDelivery {
  id: number;
  attempts: number;
  retry_from: Date;
  event_id: string;
  type: string;
  payload: unknown;
  created_at: Date;
  url: string;
  secret_sealed: string;
}

export interface WebhookClaimOptions {
  /** Deliveries taken at most. */
  limit: number;
  /** Seconds the taken deliveries stay the worker's (their next attempt is pushed that far). */
  leaseSeconds: number;
  /** Seconds added to the database's clock when deciding what is due (tests). Default 0. */
  clockOffsetSeconds?: number;
}

/**
 * Takes due deliveries for a worker, in one short transaction: the oldest pending ones whose next
 * attempt is due by the database's clock (`clock_timestamp()`, the clock the outbox triggers write
 * with), `FOR UPDATE SKIP LOCKED` so that workers in any processes take different ones, leased by
 * pushing their next attempt `leaseSeconds` past the database's clock and counting the attempt.
 * Compared and leased in SQL: a timestamp read into JavaScript loses its microseconds.
 */
export async function claimDueWebhookDeliveries(
  db: Queryable,
  options: WebhookClaimOptions,
): Promise<ClaimedWebhookDelivery[]> {
  const offsetSeconds = options.clockOffsetSeconds ?? 0;
  return db.transaction(async (trx) => {
    const due = trx('webhook_deliveries')
      .where('status', 'pending')
      .andWhereRaw('next_attempt_at <= clock_timestamp() + make_interval(secs => ?)', [
        offsetSeconds,
      ])
      .orderBy('next_attempt_at')
      .limit(options.limit)
      .forUpdate()
      .skipLocked()
      .select('id');
    const taken = await trx('webhook_deliveries')
      .whereIn('id', due)
      .update({
        next_attempt_at: trx.raw('clock_timestamp() + make_interval(secs => ?)', [
          options.leaseSeconds,
        ]),
        attempts: trx.raw('attempts + 1'),
      })
      .returning<{ id: number }[]>(['id']);
    if (taken.length === 0) return [];
    return trx({ d: 'webhook_deliveries' })
      .join({ e: 'webhook_events' }, 'e.id', 'd.event_id')
      .join({ p: 'webhook_endpoints' }, 'p.id', 'd.endpoint_id')
      .whereIn(
        'd.id',
        taken.map((row) => row.id),
      )
      .select<ClaimedWebhookDelivery[]>(
        'd.id',
        'd.attempts',
        'd.retry_from',
        'd.event_id',
        'e.type',
        'e.payload',
        'e.created_at',
        'p.url',
        'p.secret_sealed',
      );
  });
}

export interface WebhookAttemptRecord {
  deliveryId: number;
  /** The attempt count the worker's claim took: nothing is recorded once it changed. */
  attempt: number;
  status: 'delivered' | 'pending' | 'failed';
  /** For `pending`: seconds past the database's clock until the next attempt. */
  retryInSeconds?: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Records an attempt's outcome, only while the worker's lease holds (the delivery's attempt count
 * is still the one it took, so a late worker never overwrites a newer attempt or a redelivery):
 * the delivery's status (and, for `pending`, its next attempt by the database's clock), and a row
 * of the endpoint's delivery log. False when the lease had moved on: nothing written. Pass the
 * transaction that read the clock the outcome was decided by.
 */
export async function recordWebhookDeliveryAttempt(
  trx: Queryable,
  attempt: WebhookAttemptRecord,
): Promise<boolean> {
  const updated = await trx('webhook_deliveries')
    .where({ id: attempt.deliveryId, attempts: attempt.attempt })
    .update({
      status: attempt.status,
      ...(attempt.status === 'pending'
        ? {
            next_attempt_at: trx.raw('clock_timestamp() + make_interval(secs => ?)', [
              attempt.retryInSeconds ?? 0,
            ]),
          }
        : {}),
    })
    .returning<{ endpoint_id: string }[]>(['endpoint_id']);
  const [row] = updated;
  if (row === undefined) return false;
  await trx('webhook_attempts').insert({
    delivery_id: attempt.deliveryId,
    endpoint_id: row.endpoint_id,
    attempt: attempt.attempt,
    attempted_at: attempt.attemptedAt,
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
  });
  return true;
}
