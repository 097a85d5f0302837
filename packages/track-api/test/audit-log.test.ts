import { randomUUID } from 'node:crypto';
import { listAuditEntries, type AuditEntry } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

describe.each(testBackends())('audit log of the asset-tracking API on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const auditOf = async (actorId: string): Promise<AuditEntry[]> =>
    (await listAuditEntries(api.db.knex, { actorId, offset: 0, limit: 100 })).entries;

  it('when an asset is created, then one entry names the owner, the request and the asset', async () => {
    // Arrange
    const owner = await api.user();
    const assetId = `asset-${randomUUID()}`;

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${owner.token}`)
      .set('X-Request-Id', 'create-asset-1')
      .send({ assetId, data: { kind: 'pallet' }, networkId: '31337' });

    // Assert
    expect(response.status).toBe(201);
    const { trackID } = response.body.data as { trackID: string };
    expect(await auditOf(owner.id)).toEqual([
      expect.objectContaining({
        requestId: 'create-asset-1',
        action: 'asset.create',
        target: `asset:${trackID}`,
        changes: expect.objectContaining({ assetId, networkId: '31337' }) as unknown,
      }),
    ]);
  });

  it('when a creation is refused (repeated assetId, no credit), then nothing is recorded', async () => {
    // Arrange
    const owner = await api.user({ credits: 1 });
    const created = await api.createAsset(owner.token);

    // Act
    const repeated = await request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ assetId: created.assetId, data: {}, networkId: '31337' });

    // Assert
    expect(repeated.status).toBe(409);
    expect((await auditOf(owner.id)).map((entry) => entry.action)).toEqual(['asset.create']);
  });

  it('when evidences are added at once, then each has its entry on the asset', async () => {
    // Arrange
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);

    // Act
    const added = await Promise.all(
      Array.from({ length: 6 }, () => api.addEvidence(owner.token, asset.trackID)),
    );

    // Assert
    const entries = (await auditOf(owner.id)).filter((entry) => entry.action === 'evidence.add');
    expect(entries).toHaveLength(added.length);
    expect(new Set(entries.map((entry) => entry.target))).toEqual(
      new Set([`asset:${asset.trackID}`]),
    );
    expect(entries.map((entry) => entry.changes.hash).sort()).toEqual(
      added.map((transaction) => transaction.hash).sort(),
    );
  });

  it('when an evidence is refused for lack of credit, then nothing is recorded', async () => {
    // Arrange
    const owner = await api.user({ credits: 1 });
    const asset = await api.createAsset(owner.token);

    // Act
    const refused = await request(api.app)
      .post(`${BASE}/assets/${asset.trackID}/transactions`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ metadata: { step: 'poor' } });

    // Assert
    expect(refused.status).toBe(429);
    expect((await auditOf(owner.id)).map((entry) => entry.action)).toEqual(['asset.create']);
  });

  it('when an asset is shared and unshared, then both are recorded once, and sharing again records nothing', async () => {
    // Arrange
    const owner = await api.user();
    const friend = await api.user();
    const asset = await api.createAsset(owner.token);

    // Act
    await api.share(owner.token, asset.trackID, friend.did);
    await api.share(owner.token, asset.trackID, friend.did);
    const unshared = await request(api.app)
      .delete(`${BASE}/assets/${asset.trackID}/shares/${encodeURIComponent(friend.did)}`)
      .set('Authorization', `Bearer ${owner.token}`);
    const again = await request(api.app)
      .delete(`${BASE}/assets/${asset.trackID}/shares/${encodeURIComponent(friend.did)}`)
      .set('Authorization', `Bearer ${owner.token}`);

    // Assert
    expect([unshared.status, again.status]).toEqual([200, 404]);
    const entries = (await auditOf(owner.id)).filter((entry) => entry.action !== 'asset.create');
    expect(entries.map((entry) => [entry.action, entry.changes])).toEqual([
      ['asset.unshare', { userId: friend.id }],
      ['asset.share', { userId: friend.id }],
    ]);
  });
});
