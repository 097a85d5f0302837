import { holdMining, resumeMining } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  assetSchema,
  decodeGetEvidenceResponse,
  getEvidenceRequest,
  type Asset,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import {
  BASE,
  rawEthCall,
  startTrackApi,
  type TrackApiFixture,
} from './support/track-api-fixture.js';

// Asynchronous acknowledgement (RFC 7240 `Prefer`) of assets and evidences, on a node whose mining
// the tests hold back as a real network's block time does.
describe.each(testBackends())('Acknowledgement of assets and evidences on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const read = async (location: string, token: string): Promise<Asset> => {
    const response = await request(api.app).get(location).set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(200);
    return assetSchema.parse(response.body.data);
  };

  /** The asset at `location` once all its evidences are anchored; as it is after 20 s. */
  const untilAnchored = async (location: string, token: string): Promise<Asset> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const asset = await read(location, token);
      if (asset.status === 'anchored' || Date.now() > deadline) return asset;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('when assets and evidences are sent with respond-async, then 202 with them pending, the list filters by status, and they are anchored later', async () => {
    const owner = await api.user({ credits: 3 });
    const settled = await api.createAsset(owner.token);
    await holdMining(api.chain.url, api.chain.writeHeaders);
    let location = '';
    let evidenceHash = '';
    try {
      const created = await request(api.app)
        .post(`${BASE}/assets`)
        .set('Authorization', `Bearer ${owner.token}`)
        .set('Prefer', 'respond-async')
        .send({ assetId: `async-${String(Math.random())}`, data: { v: 1 }, networkId: 31337 });
      expect(created.status).toBe(202);
      expect(created.headers['preference-applied']).toBe('respond-async');
      const asset = assetSchema.parse(created.body.data);
      location = String(created.headers.location);
      expect(location).toBe(`${BASE}/assets/${encodeURIComponent(asset.trackID)}`);
      expect(asset.status).toBe('pending');
      expect(asset.transactions).toEqual([expect.objectContaining({ status: 'pending' })]);
      expect(asset.transactions[0]).not.toHaveProperty('transactionHash');

      const added = await request(api.app)
        .post(`${BASE}/assets/${asset.trackID}/transactions`)
        .set('Authorization', `Bearer ${owner.token}`)
        .set('Prefer', 'respond-async')
        .send({ metadata: { step: 'shipped' } });
      expect(added.status).toBe(202);
      expect(added.headers.location).toBe(location);
      expect(added.body.data).toMatchObject({ status: 'pending', metadata: { step: 'shipped' } });
      evidenceHash = String(added.body.data.hash);
      expect(await findCreditBalance(api.db.knex, owner.id)).toBe(0);

      const list = async (status: string) => {
        const response = await request(api.app)
          .get(`${BASE}/assets?status=${status}`)
          .set('Authorization', `Bearer ${owner.token}`);
        expect(response.status).toBe(200);
        return (response.body.data.assets as { trackID: string }[]).map((a) => a.trackID);
      };
      expect(await list('pending')).toEqual([asset.trackID]);
      expect(await list('anchored')).toEqual([settled.trackID]);
    } finally {
      await resumeMining(api.chain.url, api.chain.writeHeaders);
    }

    const anchored = await untilAnchored(location, owner.token);
    expect(anchored.status).toBe('anchored');
    expect(anchored.transactions.map((transaction) => transaction.status)).toEqual([
      'anchored',
      'anchored',
    ]);
    const evidence = anchored.transactions.find((transaction) => transaction.hash === evidenceHash);
    const reply = await rawEthCall(
      api.chain.url,
      getEvidenceRequest({
        smartContract: evidence?.smartContract ?? '',
        assetHash: anchored.assetHash,
        timestampSeconds: evidence?.timestamp ?? 0,
      }),
    );
    expect(decodeGetEvidenceResponse(reply)).toEqual({ found: true, hash: evidenceHash });
  });

  it('when a synchronous wait for an evidence ends after its batch was sent, then 202 with it pending, not a 503', async () => {
    const owner = await api.user({ credits: 2 });
    const asset = await api.createAsset(owner.token);
    await holdMining(api.chain.url, api.chain.writeHeaders);
    try {
      const added = await request(api.app)
        .post(`${BASE}/assets/${asset.trackID}/transactions`)
        .set('Authorization', `Bearer ${owner.token}`)
        .set('Prefer', 'wait=3')
        .send({ metadata: { step: 'slow block' } });

      expect(added.status).toBe(202);
      expect(added.body.data.status).toBe('pending');
    } finally {
      await resumeMining(api.chain.url, api.chain.writeHeaders);
    }
    const anchored = await untilAnchored(`${BASE}/assets/${asset.trackID}`, owner.token);
    expect(anchored.transactions).toHaveLength(2);
    expect(anchored.status).toBe('anchored');
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(0);
  });
});
