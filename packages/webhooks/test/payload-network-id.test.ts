import { randomBytes, randomUUID } from 'node:crypto';
import { createUser, insertWebhookEndpointWithin, savePlan } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startWebhookReceiver,
  type WebhookReceiver,
} from '@trustpoint/test-doubles/webhook-receiver';
import pino from 'pino';
import { createSecretSealer, newEndpointSecret, WebhookWorker } from '../src/index.js';

const sealer = createSecretSealer(randomBytes(32));
const LOCAL = { allowAddresses: ['127.0.0.1'], allowPrivateAddresses: false };

// The API answers `networkId` as a number; the webhook bodies the triggers write must too.
describe.each(testBackends())('networkId in delivered webhook bodies on %s', (backend) => {
  let db: TestDatabase;
  let receiver: WebhookReceiver;
  let worker: WebhookWorker;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await db.close();
  });
  afterEach(async () => {
    await worker.stop();
    await receiver.close();
  });

  /** A user whose one endpoint is a receiver, a worker delivering to it, and a certificate. */
  const arrange = async () => {
    receiver = await startWebhookReceiver();
    const userId = `user-${randomUUID()}`;
    await savePlan(db.knex, { id: `plan-${userId}`, name: 'plan', networkIds: [] });
    await createUser(db.knex, { id: userId, displayName: userId, planId: `plan-${userId}` });
    const secret = newEndpointSecret();
    receiver.secret = secret;
    await insertWebhookEndpointWithin(
      db.knex,
      {
        id: randomUUID(),
        userId,
        url: receiver.url,
        description: '',
        events: null,
        secretSealed: sealer.seal(secret),
      },
      10,
    );
    // Retries within the test's patience, polling often.
    worker = new WebhookWorker({
      knex: db.knex,
      sealer,
      addressPolicy: LOCAL,
      logger: pino({ level: 'silent' }),
      retry: { initialDelayMs: 50, maxDelayMs: 200 },
      pollIntervalMs: 20,
    });
    worker.start();
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
    return { userId, certificateId };
  };

  it('when a certificate is revoked, then certificate.revoked carries networkId 31337 as a number', async () => {
    // Arrange
    const { certificateId } = await arrange();

    // Act
    await db.knex('certificates').where({ id: certificateId }).update({ revoked_at: Date.now() });
    const delivered = await receiver.waitFor((w) => w.verified?.type === 'certificate.revoked');

    // Assert
    expect(delivered.verified?.data.networkId).toBe(31337);
  });

  it('when a trustpoint is anchored, then trustpoint.anchored carries networkId 31337 as a number', async () => {
    // Arrange
    const { certificateId } = await arrange();
    await db.knex('trustpoints').insert({
      certificate_id: certificateId,
      type: 0,
      hash: randomBytes(32).toString('hex'),
      timestamp: Date.now(),
      network_id: '31337',
    });

    // Act
    await db
      .knex('trustpoints')
      .where({ certificate_id: certificateId })
      .update({ transaction_hash: `0x${'1'.repeat(64)}`, smart_contract: '0xabc' });
    const delivered = await receiver.waitFor((w) => w.verified?.type === 'trustpoint.anchored');

    // Assert
    const trustpoint = delivered.verified?.data.trustpoint as Record<string, unknown>;
    expect(trustpoint.networkId).toBe(31337);
  });

  it('when an evidence is anchored, then evidence.anchored carries networkId 31337 as a number', async () => {
    // Arrange
    const { userId } = await arrange();
    const assetId = randomUUID();
    const assetHash = randomBytes(32).toString('hex');
    await db.knex('assets').insert({
      id: assetId,
      track_id: `did:test:trackid:${assetId}`,
      user_id: userId,
      asset_id: `asset-${assetId}`,
      data: {},
      asset_hash: assetHash,
      network_id: '31337',
    });
    await db.knex('evidences').insert({
      asset: assetId,
      asset_hash: assetHash,
      timestamp: Math.floor(Date.now() / 1_000),
      user_owner: `did:user:${userId}`,
      hash: randomBytes(32).toString('hex'),
      network_id: '31337',
    });

    // Act
    await db
      .knex('evidences')
      .where({ asset: assetId })
      .update({ transaction_hash: `0x${'2'.repeat(64)}`, smart_contract: '0xdef' });
    const delivered = await receiver.waitFor((w) => w.verified?.type === 'evidence.anchored');

    // Assert
    const evidence = delivered.verified?.data.evidence as Record<string, unknown>;
    expect(evidence.networkId).toBe(31337);
  });
});
