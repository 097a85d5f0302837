import { freePort } from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

describe.each(testBackends())('GET /evidences/{id} on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const verify = (id: string, token?: string) => {
    const call = request(api.app).get(`${BASE}/evidences/${id}`);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  it('when an evidence is anchored, then its owner and those it is shared with see it match the chain', async () => {
    // Arrange
    const owner = await api.user();
    const friend = await api.user();
    const asset = await api.createAsset(owner.token);
    const evidence = await api.addEvidence(owner.token, asset.trackID, { step: 'verified' });
    await api.share(owner.token, asset.trackID, friend.did);

    // Act
    const byOwner = await verify(evidence.hash, owner.token);
    const byFriend = await verify(evidence.hash, friend.token);

    // Assert
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.message).toBe('Evidence verified');
    expect(byOwner.body.data).toEqual({
      hash: evidence.hash,
      verified: true,
      evidences: [
        {
          trackID: asset.trackID,
          assetHash: asset.assetHash,
          networkId: 31337,
          smartContract: evidence.smartContract,
          transactionHash: evidence.transactionHash,
          timestamp: evidence.timestamp,
          userOwner: owner.did,
          hash: evidence.hash,
          onChain: { hash: evidence.hash },
          hashMatches: true,
          status: 'match',
          explorer: null,
        },
      ],
    });
    expect(byFriend.body).toEqual(byOwner.body);
  });

  it('when a stranger asks, or the hash is unknown, then 404 alike; a malformed id is 400; no token is 401', async () => {
    // Arrange
    const owner = await api.user();
    const stranger = await api.user();
    const asset = await api.createAsset(owner.token);
    const [first] = asset.transactions;

    // Act
    const strangers = await verify(first?.hash ?? '', stranger.token);
    const unknown = await verify('0'.repeat(64), owner.token);
    const malformed = await verify('XYZ', owner.token);
    const anonymous = await verify(first?.hash ?? '');

    // Assert
    expect([strangers.status, unknown.status, malformed.status, anonymous.status]).toEqual([
      404, 404, 400, 401,
    ]);
    expect(strangers.body).toEqual(unknown.body);
    expect(malformed.body.errors[0].field).toBe('path.id');
  });

  it('when the stored record disagrees with the chain, then mismatch, not found or pending', async () => {
    // Arrange
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);
    const [tamperedHash, tamperedTime, pending] = [
      await api.addEvidence(owner.token, asset.trackID, { n: 1 }),
      await api.addEvidence(owner.token, asset.trackID, { n: 2 }),
      await api.addEvidence(owner.token, asset.trackID, { n: 3 }),
    ];
    const evidences = () => api.db.knex('evidences');
    await evidences()
      .where({ hash: tamperedHash.hash })
      .update({ hash: 'e'.repeat(64) });
    await evidences()
      .where({ hash: tamperedTime.hash })
      .update({ timestamp: tamperedTime.timestamp + 100_000 });
    await evidences()
      .where({ hash: pending.hash })
      .update({ transaction_hash: null, smart_contract: null });

    // Act
    const mismatch = await verify('e'.repeat(64), owner.token);
    const notFound = await verify(tamperedTime.hash, owner.token);
    const notYet = await verify(pending.hash, owner.token);

    // Assert
    expect(mismatch.body.message).toBe('Evidence not verified');
    expect(mismatch.body.data.verified).toBe(false);
    expect(mismatch.body.data.evidences[0]).toMatchObject({
      status: 'mismatch',
      hashMatches: false,
      onChain: { hash: tamperedHash.hash },
    });
    expect(notFound.body.data.evidences[0]).toMatchObject({ status: 'notFound', onChain: null });
    expect(notYet.body.data.evidences[0]).toMatchObject({ status: 'pending', onChain: null });
  });
});

describe('GET /evidences/{id} when the node does not answer', () => {
  let api: TrackApiFixture;
  let dead: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi('pglite');
  });

  afterAll(async () => {
    await dead.close();
    await api.close();
  });

  it('when the network node is unreachable, then the evidence is reported unreachable, not verified', async () => {
    // Arrange: an anchored evidence, then a second API on the same records whose node is gone.
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);
    const [first] = asset.transactions;
    dead = await startTrackApi('pglite', {
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
    const copy = await dead.user();
    await dead.db.knex('assets').insert({
      id: '00000000-0000-7000-8000-000000000001',
      track_id: asset.trackID,
      user_id: copy.id,
      asset_id: asset.assetId,
      data: JSON.stringify(asset.data),
      asset_hash: asset.assetHash,
      network_id: '31337',
    });
    await dead.db.knex('evidences').insert({
      asset: '00000000-0000-7000-8000-000000000001',
      asset_hash: asset.assetHash,
      metadata: '{}',
      timestamp: first?.timestamp,
      user_owner: owner.did,
      hash: first?.hash,
      network_id: '31337',
      smart_contract: first?.smartContract,
      transaction_hash: first?.transactionHash,
    });

    // Act
    const response = await request(dead.app)
      .get(`${BASE}/evidences/${first?.hash ?? ''}`)
      .set('Authorization', `Bearer ${copy.token}`);

    // Assert
    expect(response.status).toBe(200);
    expect(response.body.data.verified).toBe(false);
    expect(response.body.data.evidences[0]).toMatchObject({ status: 'unreachable', onChain: null });
  });
});
