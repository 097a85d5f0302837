import { randomUUID } from 'node:crypto';
import { holdMining, resumeMining } from '@trustpoint/contracts';
import { countPendingAnchorRecords, findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

const LIMIT = 3;

const BUSY = {
  statusCode: 503,
  type: 'Service Unavailable Error',
  message:
    'The blockchain network has more records waiting than it can take now, please try again later',
};

// A network whose queue holds three records, on a node whose mining the tests hold back: asset
// creations and evidences past the limit are refused before anything is stored.
describe.each(testBackends())('Queue limit of assets and evidences on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend, { maxQueuedRecords: LIMIT });
  });

  afterAll(async () => {
    await resumeMining(api.chain.url, api.chain.writeHeaders);
    await api.close();
  });

  const pending = () => countPendingAnchorRecords(api.db.knex, '31337', 1_000);

  const createAsset = (token: string) =>
    request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${token}`)
      .set('Prefer', 'respond-async')
      .send({ assetId: `busy-${randomUUID()}`, data: { v: 1 }, networkId: 31337 });

  const addEvidence = (token: string, trackID: string) =>
    request(api.app)
      .post(`${BASE}/assets/${trackID}/transactions`)
      .set('Authorization', `Bearer ${token}`)
      .set('Prefer', 'respond-async')
      .send({ metadata: { step: randomUUID() } });

  const assetsOf = async (token: string) => {
    const listed = await request(api.app)
      .get(`${BASE}/assets`)
      .set('Authorization', `Bearer ${token}`);
    expect(listed.status).toBe(200);
    return (listed.body as { data: { pagination: { total: number } } }).data.pagination.total;
  };

  it('when assets and evidences come at once past the limit, then three records are queued and the rest answered 503 networkBusy with Retry-After, spending and storing nothing; once the queue drains, they are taken again', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 20 });
    const asset = await api.createAsset(token);
    const credits = (await findCreditBalance(api.db.knex, id)) ?? 0;
    await holdMining(api.chain.url, api.chain.writeHeaders);

    // Act
    const [assets, evidences] = await Promise.all([
      Promise.all(Array.from({ length: 4 }, () => createAsset(token))),
      Promise.all(Array.from({ length: 4 }, () => addEvidence(token, asset.trackID))),
    ]);
    const answers = [...assets, ...evidences];

    // Assert
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 503);
    expect(accepted).toHaveLength(LIMIT);
    expect(refused).toHaveLength(8 - LIMIT);
    for (const answer of refused) {
      expect(answer.body).toEqual(BUSY);
      expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    }
    expect(await pending()).toBe(LIMIT);
    expect(await findCreditBalance(api.db.knex, id)).toBe(credits - LIMIT);
    const acceptedAssets = assets.filter((answer) => answer.status === 202).length;
    expect(await assetsOf(token)).toBe(1 + acceptedAssets);

    // Act: the chain takes the queue.
    await resumeMining(api.chain.url, api.chain.writeHeaders);
    const deadline = Date.now() + 20_000;
    while ((await pending()) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const again = await addEvidence(token, asset.trackID);

    // Assert
    expect(again.status).toBe(202);
  });
});
