import { freePort } from '@trustpoint/contracts';
import { findCreditBalance, grantCredits, insertAsset } from '@trustpoint/db';
import { assetHash } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

describe('the tracking API when the chain is down', () => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi('pglite', {
      anchorTimeoutMs: 1_500,
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
  });

  afterAll(async () => {
    await api.close();
  });

  const count = async (table: string, where: Record<string, unknown>) =>
    (await api.db.knex(table).where(where).count<{ count: number }[]>('* as count'))[0]?.count;

  it('when an asset cannot be anchored in time, then 503 and the request leaves nothing behind', async () => {
    // Arrange
    const owner = await api.user({ credits: 2 });
    const started = Date.now();

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ assetId: 'later', data: {}, networkId: '31337' });

    // Assert
    expect(response.status).toBe(503);
    expect(response.body.type).toBe('Service Unavailable Error');
    // Well under the 30 s a request waits for its record by default; the first checked request
    // of a file also builds the OpenAPI checker, which a loaded machine takes seconds over.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    expect(await count('assets', { user_id: owner.id })).toBe(0);
    expect(await count('anchor_records', { status: 'queued' })).toBe(0);
  });

  it('when an evidence cannot be anchored in time, then 503, the evidence is withdrawn and the credit is back', async () => {
    // Arrange: an asset that exists already (its creation needed the chain).
    const owner = await api.user({ credits: 1 });
    const data = { id: 'x' };
    const asset = await insertAsset(api.db.knex, {
      id: '00000000-0000-7000-8000-00000000000a',
      trackId: 'did:trustpoint:trackid:00000000-0000-7000-8000-00000000000a',
      userId: owner.id,
      assetId: 'existing',
      data,
      assetHash: assetHash({ assetId: 'existing', data }),
      hashVersion: 1,
      networkId: '31337',
    });
    await grantCredits(api.db.knex, owner.id, 1);

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets/${asset.trackId}/transactions`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ metadata: { n: 1 } });

    // Assert
    expect(response.status).toBe(503);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    expect(await count('evidences', { asset: asset.id })).toBe(0);
    expect(await count('anchor_records', { status: 'queued' })).toBe(0);
  });
});
