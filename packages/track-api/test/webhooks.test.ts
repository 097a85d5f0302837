import { testBackends } from '@trustpoint/test-database';
import { deliveringWebhooks } from '@trustpoint/test-kit/suites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

const ENDPOINTS = `${BASE}/webhooks/endpoints`;

// Webhooks of evidences: a real receiver on 127.0.0.1 (allowed by the fixture) that fails its
// first attempts and checks every signature with standardwebhooks, a worker with short backoff.
describe.each(testBackends())('Webhooks of the asset-tracking API on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  /** Delivers its webhooks; `endpointFor` makes a receiver and an endpoint of a user at it. */
  const { endpointFor } = deliveringWebhooks(
    () => ({ agent: request(api.app), knex: api.db.knex, webhooks: api.webhooks }),
    BASE,
  );

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  it('when an evidence is registered asynchronously, then evidence.anchored is delivered, signed, after failed attempts', async () => {
    // Arrange
    const owner = await api.user();
    const { receiver, endpoint } = await endpointFor(
      owner.token,
      { events: ['evidence.anchored'] },
      2,
    );
    const asset = await api.createAsset(owner.token);
    // Act
    const accepted = await request(api.app)
      .post(`${BASE}/assets/${asset.trackID}/transactions`)
      .set(auth(owner.token))
      .set('Prefer', 'respond-async')
      .send({ metadata: { step: 'packed' } });
    expect(accepted.status).toBe(202);
    // Assert: the first evidence's event (asset creation), then this one.
    const delivered = await receiver.waitFor(
      (w) =>
        (w.verified?.data.evidence as { hash?: string } | undefined)?.hash ===
        accepted.body.data.hash,
    );
    expect(delivered.verified?.type).toBe('evidence.anchored');
    expect(delivered.verified?.data).toMatchObject({
      trackID: asset.trackID,
      assetId: asset.assetId,
      assetHash: asset.assetHash,
      evidence: {
        hash: accepted.body.data.hash as unknown,
        timestamp: accepted.body.data.timestamp as unknown,
        userOwner: owner.did,
        networkId: 31337,
        smartContract: api.network.evidenceRepository,
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as unknown,
      },
    });
    expect(receiver.received.slice(0, 2).map((w) => w.status)).toEqual([500, 500]);
    await expect
      .poll(async () => {
        const log = await request(api.app)
          .get(`${ENDPOINTS}/${endpoint.id}/attempts`)
          .set(auth(owner.token));
        return (log.body.data.attempts as { statusCode: number }[]).filter(
          (a) => a.statusCode === 204,
        ).length;
      })
      .toBe(2);
  });

  it('when a sharee registers an evidence, then both the owner and the sharee are told', async () => {
    const owner = await api.user();
    const sharee = await api.user();
    const ownerHook = await endpointFor(owner.token);
    const shareeHook = await endpointFor(sharee.token);
    const asset = await api.createAsset(owner.token);
    await api.share(owner.token, asset.trackID, sharee.did);
    const evidence = await api.addEvidence(sharee.token, asset.trackID);
    const isIt = (w: { verified?: { data: Record<string, unknown> } }) =>
      (w.verified?.data.evidence as { hash?: string } | undefined)?.hash === evidence.hash;
    await ownerHook.receiver.waitFor(isIt);
    await shareeHook.receiver.waitFor(isIt);
  });

  it('when an evidence’s anchor record fails, then evidence.failed is delivered with the reason', async () => {
    const owner = await api.user();
    const { receiver } = await endpointFor(owner.token, { events: ['evidence.failed'] });
    const asset = await api.createAsset(owner.token);
    const [evidence] = await api.db
      .knex('evidences')
      .join('assets', 'assets.id', 'evidences.asset')
      .where('assets.track_id', asset.trackID)
      .select<{ id: number; anchor_record_id: number }[]>(
        'evidences.id',
        'evidences.anchor_record_id',
      );
    // As if the chain had refused it: the engine marks the record failed (the hash unset again).
    await api.db.knex('evidences').where({ id: evidence?.id }).update({ transaction_hash: null });
    await api.db
      .knex('anchor_records')
      .where({ id: evidence?.anchor_record_id })
      .update({ status: 'failed', error: 'refused' });
    const delivered = await receiver.waitFor((w) => w.verified?.type === 'evidence.failed');
    expect(delivered.verified?.data).toMatchObject({ trackID: asset.trackID, failure: 'refused' });
  });

  it('when another user lists endpoints, then they see only their own', async () => {
    const owner = await api.user();
    const other = await api.user();
    const { endpoint } = await endpointFor(owner.token);
    const list = await request(api.app).get(ENDPOINTS).set(auth(other.token));
    expect(list.body.data).toEqual({ endpoints: [] });
    expect(
      (await request(api.app).get(`${ENDPOINTS}/${endpoint.id}`).set(auth(other.token))).status,
    ).toBe(404);
  });

  it('when the URL is at a private address, then 400', async () => {
    const owner = await api.user();
    const response = await request(api.app)
      .post(ENDPOINTS)
      .set(auth(owner.token))
      .send({ url: 'http://10.1.2.3/hook' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('body.url');
  });
});
