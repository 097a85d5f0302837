import { randomBytes, randomUUID } from 'node:crypto';
import { createUser, insertWebhookEndpointWithin, savePlan } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretSealer } from '../src/index.js';

const sealer = createSecretSealer(randomBytes(32));

// The events are written by triggers in the transaction of the change: they commit with it, or
// not at all, whichever process makes it.
describe.each(testBackends())('webhook events written with their change on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await db.close();
  });

  /** A user with one endpoint for every type, and a certificate with one unanchored trustpoint. */
  const arrange = async () => {
    const userId = `user-${randomUUID()}`;
    await savePlan(db.knex, { id: `plan-${userId}`, name: 'plan', networkIds: [] });
    await createUser(db.knex, { id: userId, displayName: userId, planId: `plan-${userId}` });
    await insertWebhookEndpointWithin(
      db.knex,
      {
        id: randomUUID(),
        userId,
        url: 'https://93.184.215.14/h',
        description: '',
        events: null,
        secretSealed: sealer.seal('whsec_x'),
      },
      10,
    );
    const certificateId = randomUUID();
    await db.knex('certificates').insert({
      id: certificateId,
      cert_id: `did:test:certid:${certificateId}`,
      user_id: userId,
      type: 'content',
      name: 'n',
      description: '',
      hash: randomBytes(32).toString('hex'),
      issued_on: Date.now(),
      network_id: '31337',
    });
    await db.knex('trustpoints').insert({
      certificate_id: certificateId,
      type: 0,
      hash: randomBytes(32).toString('hex'),
      timestamp: Date.now(),
      network_id: '31337',
    });
    return { userId, certificateId };
  };

  const eventsOf = (userId: string) =>
    db.knex('webhook_events').where({ user_id: userId }).pluck<string[]>('type');

  it('when the change is rolled back, then so is its event; when committed, the event is there once', async () => {
    const { userId, certificateId } = await arrange();
    const anchor = (trx: typeof db.knex) =>
      trx('trustpoints')
        .where({ certificate_id: certificateId })
        .update({ transaction_hash: `0x${'1'.repeat(64)}`, smart_contract: '0xabc' });

    await expect(
      db.knex.transaction(async (trx) => {
        await anchor(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await eventsOf(userId)).toEqual([]);

    await db.knex.transaction(async (trx) => {
      await anchor(trx);
    });
    expect(await eventsOf(userId)).toEqual(['trustpoint.anchored']);
    // Written again with the same hash (a re-settle): not a new event.
    await anchor(db.knex);
    expect(await eventsOf(userId)).toEqual(['trustpoint.anchored']);
  });

  it('when a certificate is revoked twice, then certificate.revoked is written once', async () => {
    const { userId, certificateId } = await arrange();
    await db.knex('certificates').where({ id: certificateId }).update({ revoked_at: Date.now() });
    await db.knex('certificates').where({ id: certificateId }).update({ public: true });
    expect(await eventsOf(userId)).toEqual(['certificate.revoked']);
    const deliveries = await db
      .knex('webhook_deliveries')
      .join('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
      .where('webhook_events.user_id', userId)
      .count<{ count: number | string }[]>({ count: '*' });
    expect(Number(deliveries[0]?.count)).toBe(1);
  });
});
