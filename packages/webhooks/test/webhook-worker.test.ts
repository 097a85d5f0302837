import { randomBytes, randomUUID } from 'node:crypto';
import {
  createUser,
  insertWebhookEndpointWithin,
  listWebhookAttempts,
  savePlan,
  scheduleWebhookRedelivery,
} from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSecretSealer,
  newEndpointSecret,
  WebhookWorker,
  type WebhookEventType,
  type WebhookWorkerOptions,
} from '../src/index.js';
import {
  startWebhookReceiver,
  type WebhookReceiver,
} from '@trustpoint/test-doubles/webhook-receiver';

const sealer = createSecretSealer(randomBytes(32));
const LOCAL = { allowAddresses: ['127.0.0.1'], allowPrivateAddresses: false };
const logger = pino({ level: 'silent' });

describe.each(testBackends())('webhook delivery on %s', (backend) => {
  let db: TestDatabase;
  const receivers: WebhookReceiver[] = [];
  const workers: WebhookWorker[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await db.close();
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  const receiver = async (options: Parameters<typeof startWebhookReceiver>[0] = {}) => {
    const started = await startWebhookReceiver(options);
    receivers.push(started);
    return started;
  };

  const worker = (options: Partial<WebhookWorkerOptions> = {}) => {
    const made = new WebhookWorker({
      knex: db.knex,
      sealer,
      addressPolicy: LOCAL,
      logger,
      retry: { initialDelayMs: 50, maxDelayMs: 400 },
      requestTimeoutMs: 2_000,
      leaseMs: 3_000,
      pollIntervalMs: 10,
      ...options,
    });
    workers.push(made);
    return made;
  };

  /** A user with one endpoint at the receiver (its secret given to the receiver). */
  const userWithEndpoint = async (
    target: WebhookReceiver,
    events: WebhookEventType[] | null = null,
  ) => {
    const userId = `user-${randomUUID()}`;
    await savePlan(db.knex, { id: `plan-${userId}`, name: 'plan', networkIds: [] });
    await createUser(db.knex, { id: userId, displayName: userId, planId: `plan-${userId}` });
    const secret = newEndpointSecret();
    target.secret = secret;
    const endpoint = await insertWebhookEndpointWithin(
      db.knex,
      {
        id: randomUUID(),
        userId,
        url: target.url,
        description: '',
        events,
        secretSealed: sealer.seal(secret),
      },
      10,
    );
    if (endpoint === undefined) throw new Error('no endpoint');
    return { userId, endpoint };
  };

  /** What the triggers do: an event for the user, fanned out to the endpoints that want it. */
  const publish = async (userId: string, type: WebhookEventType, data: object) => {
    await db.knex.raw('select webhook_publish(?, ?, ?::jsonb)', [
      userId,
      type,
      JSON.stringify(data),
    ]);
    const row = await db
      .knex('webhook_events')
      .where({ user_id: userId })
      .orderBy('created_at', 'desc')
      .first<{ id: string } | undefined>('id');
    return row?.id;
  };

  it('when the endpoint fails its first attempts, then it is retried with growing waits until delivered, signed', async () => {
    // Arrange
    const target = await receiver({ failFirst: 3 });
    const { userId, endpoint } = await userWithEndpoint(target);
    // Act
    const eventId = await publish(userId, 'certificate.revoked', { certID: 'did:x:certid:1' });
    worker().start();
    const delivered = await target.waitFor((w) => w.status === 204);
    // Assert
    expect(delivered.headers['webhook-id']).toBe(eventId);
    expect(delivered.verified?.type).toBe('certificate.revoked');
    expect(delivered.verified?.data).toEqual({ certID: 'did:x:certid:1' });
    expect(target.received.map((w) => w.status)).toEqual([500, 500, 500, 204]);
    expect(new Set(target.received.map((w) => w.headers['webhook-id']))).toEqual(
      new Set([eventId]),
    );
    const gaps = target.received
      .slice(1)
      .map((w, i) => w.receivedAt - (target.received[i]?.receivedAt ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(50);
    expect(gaps[1]).toBeGreaterThanOrEqual(100);
    expect(gaps[2]).toBeGreaterThanOrEqual(200);
    // The receiver answered before the worker recorded the outcome.
    await expect
      .poll(async () =>
        (await listWebhookAttempts(db.knex, endpoint.id, 10)).map((a) => [a.attempt, a.statusCode]),
      )
      .toEqual([
        [4, 204],
        [3, 500],
        [2, 500],
        [1, 500],
      ]);
    const log = await listWebhookAttempts(db.knex, endpoint.id, 10);
    expect(log[0]?.deliveryStatus).toBe('delivered');
  });

  it('when retries run past the retry window, then the delivery has failed and is not tried again', async () => {
    const target = await receiver({ answer: () => 503 });
    const { userId, endpoint } = await userWithEndpoint(target);
    await publish(userId, 'trustpoint.failed', { certID: 'c' });
    const running = worker({ retry: { initialDelayMs: 30, maxDelayMs: 30, retryForMs: 150 } });
    running.start();
    await expect
      .poll(async () => (await listWebhookAttempts(db.knex, endpoint.id, 1))[0]?.deliveryStatus, {
        timeout: 5_000,
      })
      .toBe('failed');
    const attempts = target.received.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(target.received.length).toBe(attempts);
  });

  it('when the owner asks for a redelivery, then the same event is sent again with the same id', async () => {
    const target = await receiver();
    const { userId, endpoint } = await userWithEndpoint(target);
    const eventId = await publish(userId, 'evidence.anchored', { trackID: 't' });
    worker().start();
    await target.waitFor(() => true);
    // Act
    expect(await scheduleWebhookRedelivery(db.knex, endpoint, eventId ?? '')).toBe(true);
    await expect.poll(() => target.received.length, { timeout: 5_000 }).toBe(2);
    // Assert
    expect(target.received[1]?.headers['webhook-id']).toBe(eventId);
    expect(target.received[1]?.verified).toBeDefined();
  });

  it("when the owner asks for a redelivery while the first attempt is still in flight, then the event is sent again, not lost to that attempt's outcome", async () => {
    // Arrange: the endpoint holds the first request 800 ms before it answers 204.
    const target = await receiver({ holdMs: (index) => (index === 0 ? 800 : 0) });
    const { userId, endpoint } = await userWithEndpoint(target);
    const eventId = await publish(userId, 'evidence.anchored', { trackID: 't' });
    worker().start();
    await target.waitFor(() => true);

    // Act: asked while the first attempt waits for its answer.
    expect(await scheduleWebhookRedelivery(db.knex, endpoint, eventId ?? '')).toBe(true);

    // Assert
    await expect.poll(() => target.received.length, { timeout: 5_000 }).toBe(2);
    await expect
      .poll(async () => (await listWebhookAttempts(db.knex, endpoint.id, 5))[0]?.deliveryStatus, {
        timeout: 5_000,
      })
      .toBe('delivered');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(target.received).toHaveLength(2);
    expect(target.received[1]?.headers['webhook-id']).toBe(eventId);
  });

  it('when a worker dies mid-delivery, then another takes the delivery once the lease ends', async () => {
    // Arrange: the endpoint never answers the first request, as if the worker died waiting.
    const target = await receiver({ answer: (index) => (index === 0 ? 0 : 204) });
    const { userId } = await userWithEndpoint(target);
    const eventId = await publish(userId, 'trustpoint.anchored', { certID: 'c' });
    const stuck = worker({ requestTimeoutMs: 1_500, leaseMs: 2_000 });
    const first = stuck.runOnce();
    await expect.poll(() => target.received.length).toBe(1);
    // Act: another process, once the lease has run out.
    const later = worker({ clockOffsetMs: 2_500 });
    expect(await later.runOnce()).toBe(1);
    await first;
    // Assert: delivered by the second; the first's late outcome is not recorded over it.
    expect(target.received.map((w) => w.headers['webhook-id'])).toEqual([eventId, eventId]);
    const row = await db
      .knex('webhook_deliveries')
      .where({ event_id: eventId })
      .first<{ status: string; attempts: number }>('status', 'attempts');
    expect(row).toEqual({ status: 'delivered', attempts: 2 });
  });

  it('when several workers run at once, then each delivery is sent once', async () => {
    const target = await receiver();
    const { userId } = await userWithEndpoint(target);
    for (let i = 0; i < 30; i += 1) await publish(userId, 'evidence.anchored', { n: i });
    for (let i = 0; i < 3; i += 1) worker({ batchSize: 4 }).start();
    await expect.poll(() => target.received.length, { timeout: 10_000 }).toBe(30);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(new Set(target.received.map((w) => w.headers['webhook-id'])).size).toBe(30);
    expect(target.received.length).toBe(30);
  });

  it('when the address is not allowed at delivery time, then nothing is sent and the log says why', async () => {
    const target = await receiver();
    const { userId, endpoint } = await userWithEndpoint(target);
    await publish(userId, 'certificate.revoked', { certID: 'c' });
    await worker({ addressPolicy: { allowAddresses: [], allowPrivateAddresses: false } }).runOnce();
    expect(target.received).toEqual([]);
    const [attempt] = await listWebhookAttempts(db.knex, endpoint.id, 1);
    expect(attempt?.statusCode).toBeNull();
    expect(attempt?.error).toMatch(/non-public address/);
  });

  it('when the endpoint redirects, then the redirect is not followed and the attempt failed', async () => {
    const target = await receiver({ answer: () => 302 });
    const { userId, endpoint } = await userWithEndpoint(target);
    await publish(userId, 'certificate.revoked', { certID: 'c' });
    await worker().runOnce();
    const [attempt] = await listWebhookAttempts(db.knex, endpoint.id, 1);
    expect(attempt).toMatchObject({ statusCode: 302, deliveryStatus: 'pending' });
    expect(target.received).toHaveLength(1);
  });

  it('when an endpoint filters event types, then only those types are delivered to it', async () => {
    const target = await receiver();
    const { userId } = await userWithEndpoint(target, ['certificate.revoked']);
    await publish(userId, 'trustpoint.anchored', { certID: 'a' });
    await publish(userId, 'certificate.revoked', { certID: 'b' });
    const running = worker();
    await running.runOnce();
    expect(target.received.map((w) => w.verified?.type)).toEqual(['certificate.revoked']);
  });

  it('when a delivery is claimed within the millisecond it was written, then it is delivered in that round', async () => {
    // The outbox writes with the database's clock in microseconds: a claim by a clock read in
    // whole milliseconds found such a delivery not yet due, three times in four, and left it to
    // the next poll (a second in production).
    const target = await receiver();
    const { userId } = await userWithEndpoint(target);
    const running = worker();
    const missed: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      await db.knex.raw('select webhook_publish(?, ?, ?::jsonb)', [
        userId,
        'certificate.revoked',
        JSON.stringify({ n: i }),
      ]);
      await running.runOnce();
      if (target.received.length !== i + 1) missed.push(i);
    }
    expect(missed).toEqual([]);
    expect(target.received).toHaveLength(20);
  });

  it('when no endpoint of the user wants the event, then no event is stored', async () => {
    const userId = `user-${randomUUID()}`;
    await savePlan(db.knex, { id: `plan-${userId}`, name: 'plan', networkIds: [] });
    await createUser(db.knex, { id: userId, displayName: userId, planId: `plan-${userId}` });
    expect(await publish(userId, 'trustpoint.anchored', {})).toBeUndefined();
  });
});
