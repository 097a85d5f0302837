import {
  claimDueWebhookDeliveries,
  readDatabaseClock,
  recordWebhookDeliveryAttempt,
  type ClaimedWebhookDelivery,
} from '@trustpoint/db';
import type { AddressPolicy } from '@trustpoint/http';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs, type RetrySchedule } from './retry-schedule.js';
import type { SecretSealer } from './secret-sealer.js';
import { sendWebhook, type SendOutcome } from './send-webhook.js';

export interface WebhookWorkerOptions {
  knex: Knex;
  sealer: SecretSealer;
  /** Checked again at every delivery, on the address connected to. */
  addressPolicy: AddressPolicy;
  logger: Logger;
  retry?: Partial<RetrySchedule>;
  /** Milliseconds one POST may take in all. Default 10 s. */
  requestTimeoutMs?: number;
  /**
   * How long a taken delivery is the worker's: if it has not recorded an outcome by then (it
   * crashed), any worker takes it again. Longer than the request timeout. Default 60 s.
   */
  leaseMs?: number;
  /** Deliveries taken at once. Default 20. */
  batchSize?: number;
  /** How often to look for due deliveries when there were none. Default 1 s. */
  pollIntervalMs?: number;
  /**
   * Milliseconds added to the database's clock when deciding what is due, for tests that act as a
   * worker running later. Default 0.
   */
  clockOffsetMs?: number;
  /** Told of each attempt's outcome once it is recorded (metrics). */
  onAttempt?: (attempt: WebhookAttemptOutcome) => void;
}

/** One delivery attempt, as recorded: `pending` means it failed and will be retried. */
export interface WebhookAttemptOutcome {
  status: 'delivered' | 'pending' | 'failed';
  durationMs: number;
}

/**
 * Delivers webhook events, at least once. Any number of workers, in any processes, may run
 * against one database: each takes due deliveries with `FOR UPDATE SKIP LOCKED` and leases them
 * (pushes their next attempt past `leaseMs`) in one short transaction, then POSTs outside any
 * transaction, then records the outcome. A worker that dies between the two leaves the lease to
 * run out, and the delivery is attempted again: never lost, at worst sent twice (receivers
 * deduplicate on `webhook-id`). Outcomes are recorded only by the lease holder (the attempt
 * count it took), so a late worker never overwrites a newer attempt.
 */
export class WebhookWorker {
  readonly #options: WebhookWorkerOptions;
  readonly #retry: RetrySchedule;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(options: WebhookWorkerOptions) {
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY_SCHEDULE, ...options.retry };
    const leaseMs = options.leaseMs ?? 60_000;
    if (leaseMs <= (options.requestTimeoutMs ?? 10_000)) {
      throw new Error('The webhook lease must be longer than the request timeout');
    }
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Takes and delivers one batch of due deliveries; how many it took. */
  async runOnce(): Promise<number> {
    const deliveries = await this.#claim();
    await Promise.all(deliveries.map((delivery) => this.#deliver(delivery)));
    return deliveries.length;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.runOnce().then(
        (taken) => {
          this.#schedule(taken >= this.#batchSize ? 0 : (this.#options.pollIntervalMs ?? 1_000));
        },
        (error: unknown) => {
          this.#options.logger.error({ err: error }, 'webhook delivery round failed');
          this.#schedule(this.#options.pollIntervalMs ?? 1_000);
        },
      );
    }, delayMs);
  }

  get #batchSize(): number {
    return this.#options.batchSize ?? 20;
  }

  /**
   * Every time the worker compares or writes is the database's clock (`clock_timestamp()`), the
   * clock the outbox triggers write with: a process clock read in whole milliseconds would find a
   * delivery written within the same millisecond (microseconds later) not yet due, and leave it to
   * the next poll; a worker on another host would lease by its own clock's skew.
   */
  async #claim(): Promise<ClaimedWebhookDelivery[]> {
    const offsetSeconds = (this.#options.clockOffsetMs ?? 0) / 1000;
    return claimDueWebhookDeliveries(this.#options.knex, {
      limit: this.#batchSize,
      leaseSeconds: offsetSeconds + (this.#options.leaseMs ?? 60_000) / 1000,
      clockOffsetSeconds: offsetSeconds,
    });
  }

  async #deliver(delivery: ClaimedWebhookDelivery): Promise<void> {
    const started = performance.now();
    const timeoutMs = this.#options.requestTimeoutMs ?? 10_000;
    let outcome: SendOutcome;
    try {
      // The Standard Webhooks payload: type, timestamp, data.
      const body = JSON.stringify({
        type: delivery.type,
        timestamp: delivery.created_at.toISOString(),
        data: delivery.payload,
      });
      const signer = new Webhook(this.#options.sealer.open(delivery.secret_sealed));
      const sentAt = new Date();
      const headers = {
        'webhook-id': delivery.event_id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signer.sign(delivery.event_id, sentAt, body),
      };
      outcome = await sendWebhook(delivery.url, headers, body, {
        addressPolicy: this.#options.addressPolicy,
        timeoutMs,
      });
    } catch (error) {
      this.#options.logger.error({ err: error, eventId: delivery.event_id }, 'webhook not sent');
      outcome = { ok: false, statusCode: null, error: 'The event could not be signed' };
    }
    await this.#record(delivery, outcome, Math.max(0, performance.now() - started));
  }

  async #record(delivery: ClaimedWebhookDelivery, outcome: SendOutcome, durationMs: number) {
    const delayMs = retryDelayMs(delivery.attempts, this.#retry);
    const recorded = await this.#options.knex.transaction(async (trx) => {
      const offsetSeconds = (this.#options.clockOffsetMs ?? 0) / 1000;
      const now = (await readDatabaseClock(trx, offsetSeconds)).getTime();
      const givesUp = now + delayMs > delivery.retry_from.getTime() + this.#retry.retryForMs;
      const status = outcome.ok ? 'delivered' : givesUp ? 'failed' : 'pending';
      // Only while this worker's lease holds: the attempt count is the one it took.
      const stored = await recordWebhookDeliveryAttempt(trx, {
        deliveryId: delivery.id,
        attempt: delivery.attempts,
        status,
        retryInSeconds: offsetSeconds + delayMs / 1000,
        attemptedAt: new Date(now - durationMs),
        statusCode: outcome.statusCode,
        error: outcome.error,
        durationMs: Math.round(durationMs),
      });
      return stored ? status : undefined;
    });
    if (recorded === undefined) return;
    this.#options.onAttempt?.({ status: recorded, durationMs });
    if (recorded === 'failed') {
      this.#options.logger.warn(
        { eventId: delivery.event_id, attempts: delivery.attempts },
        'webhook delivery given up',
      );
    }
  }
}
