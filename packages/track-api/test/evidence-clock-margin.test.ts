import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

// Each evidence of an asset takes the next free second (its on-chain key is (assetHash, second)),
// so a burst runs ahead of the clock: by at most the margin, then 429.
const MARGIN_SECONDS = 5;
// The clock stands still, so the margin is all a burst gets.
const NOW_MS = Math.floor(Date.now() / 1_000) * 1_000;

describe.each(testBackends())('evidence timestamps ahead of the clock on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend, {
      now: () => NOW_MS,
      maxEvidenceAheadSeconds: MARGIN_SECONDS,
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('when a burst would run past the margin, then the rest are 429 with Retry-After, nothing stored or spent', async () => {
    // Arrange: the asset's creation evidence takes the current second.
    const owner = await api.user({ credits: 100 });
    const asset = await api.createAsset(owner.token);
    const creditsBefore = await findCreditBalance(api.db.knex, owner.id);

    // Act: 20 at once, on concurrent requests.
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(api.app)
          .post(`${BASE}/assets/${asset.trackID}/transactions`)
          .set('Authorization', `Bearer ${owner.token}`)
          .send({ metadata: { i } }),
      ),
    );

    // Assert
    const accepted = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status === 429);
    expect(accepted).toHaveLength(MARGIN_SECONDS);
    expect(refused).toHaveLength(20 - MARGIN_SECONDS);
    const nowSeconds = NOW_MS / 1_000;
    expect(
      accepted.map((response) => (response.body.data as { timestamp: number }).timestamp).sort(),
    ).toEqual(Array.from({ length: MARGIN_SECONDS }, (_, i) => nowSeconds + 1 + i));
    for (const response of refused) {
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toEqual({
        statusCode: 429,
        type: 'Too Many Requests Error',
        message: 'Too many requests, please try again later',
      });
    }
    const stored = await api.db.knex('evidences').where({ asset_hash: asset.assetHash }).count();
    expect(Number(Object.values(stored[0] ?? {})[0])).toBe(1 + MARGIN_SECONDS);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(
      (creditsBefore ?? 0) - MARGIN_SECONDS,
    );
  });

  it("when one user's asset's clock is at the margin, then another user's asset with the same id and data starts at the current second", async () => {
    // Arrange: before version 2 the two assets shared an assetHash, and so its clock.
    const first = await api.user();
    const second = await api.user();
    const body = { assetId: `shared-${String(Date.now())}`, data: { same: true } };
    const asset = await api.createAsset(first.token, body);
    await Promise.all(
      Array.from({ length: MARGIN_SECONDS }, (_, i) =>
        api.addEvidence(first.token, asset.trackID, { i }),
      ),
    );

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${second.token}`)
      .send({ ...body, networkId: '31337' });

    // Assert
    expect(response.status).toBe(201);
    const theirs = response.body.data as {
      assetHash: string;
      transactions: { timestamp: number }[];
    };
    expect(theirs.assetHash).not.toBe(asset.assetHash);
    expect(theirs.transactions[0]?.timestamp).toBe(NOW_MS / 1_000);
  });

  it("when a user an asset is shared with sends evidences beyond their credit, then those are 429 and take none of the owner's seconds", async () => {
    // Arrange: the owner's asset takes the current second; one user it is shared with holds no
    // credit, another holds 2.
    const owner = await api.user({ credits: 100 });
    const broke = await api.user({ credits: 0 });
    const thrifty = await api.user({ credits: 2 });
    const asset = await api.createAsset(owner.token);
    await api.share(owner.token, asset.trackID, broke.did);
    await api.share(owner.token, asset.trackID, thrifty.did);
    const send = (token: string, i: number) =>
      request(api.app)
        .post(`${BASE}/assets/${asset.trackID}/transactions`)
        .set('Authorization', `Bearer ${token}`)
        .send({ metadata: { i } });

    // Act: more refused requests at once than the margin has seconds, then the owner's evidence.
    const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => send(broke.token, i)));
    // One after the other: each reads the balance the last one left.
    const partly = [];
    for (let i = 0; i < 4; i += 1) partly.push(await send(thrifty.token, i));
    const owners = await send(owner.token, 99);

    // Assert
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(response.body.type).toBe('Out of Credits Error');
    }
    expect(partly.map((response) => response.status)).toEqual([201, 201, 429, 429]);
    expect(owners.status).toBe(201);
    // The creation's second, the two paid for, then the owner's: nothing skipped for the refused.
    expect((owners.body.data as { timestamp: number }).timestamp).toBe(NOW_MS / 1_000 + 3);
    expect(await findCreditBalance(api.db.knex, broke.id)).toBe(0);
    expect(await findCreditBalance(api.db.knex, thrifty.id)).toBe(0);
  });
});
