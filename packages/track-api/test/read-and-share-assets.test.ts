import { testBackends } from '@trustpoint/test-database';
import { assetListSchema, type Asset } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

describe.each(testBackends())('reading and sharing assets on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const get = (token: string, path: string) =>
    request(api.app).get(`${BASE}${path}`).set('Authorization', `Bearer ${token}`);
  const shareCall = (method: 'put' | 'delete', token: string, trackID: string, did: string) =>
    request(api.app)
      [method](`${BASE}/assets/${trackID}/shares/${encodeURIComponent(did)}`)
      .set('Authorization', `Bearer ${token}`);

  describe('GET /assets/{trackID}', () => {
    it('when the owner reads an asset, then its transactions come oldest first (newest last)', async () => {
      // Arrange
      const owner = await api.user();
      const asset = await api.createAsset(owner.token);
      const second = await api.addEvidence(owner.token, asset.trackID, { n: 2 });
      const third = await api.addEvidence(owner.token, asset.trackID, { n: 3 });

      // Act
      const response = await get(owner.token, `/assets/${asset.trackID}`);

      // Assert
      expect(response.status).toBe(200);
      expect(response.body.message).toBe('Asset retrieved successfully');
      expect(response.body.data).toEqual({
        ...asset,
        transactions: [...asset.transactions, second, third],
      });
      const stamps = (response.body.data as Asset).transactions.map((t) => t.timestamp);
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    });

    it('when a stranger or a user after unsharing reads it, then 404 like an unknown trackID; a malformed one is 400', async () => {
      // Arrange
      const owner = await api.user();
      const friend = await api.user();
      const stranger = await api.user();
      const asset = await api.createAsset(owner.token);
      await api.share(owner.token, asset.trackID, friend.did);
      const whileShared = await get(friend.token, `/assets/${asset.trackID}`);
      await shareCall('delete', owner.token, asset.trackID, friend.did);

      // Act
      const afterUnshare = await get(friend.token, `/assets/${asset.trackID}`);
      const strangers = await get(stranger.token, `/assets/${asset.trackID}`);
      const unknown = await get(
        owner.token,
        `/assets/${asset.trackID.replace(/[0-9a-f]{4}$/, '0000')}`,
      );
      const malformed = await get(owner.token, '/assets/pallet-7');

      // Assert
      expect(whileShared.status).toBe(200);
      expect([afterUnshare.status, strangers.status, unknown.status]).toEqual([404, 404, 404]);
      expect(strangers.body).toEqual({
        statusCode: 404,
        type: 'Not Found Error',
        message: 'The requested resource was not found',
      });
      expect(malformed.status).toBe(400);
    });

    it('when no token is sent, then 401', async () => {
      const response = await request(api.app).get(`${BASE}/assets/did:trustpoint:trackid:x`);

      expect(response.status).toBe(401);
      expect(response.body.message).toBe('Token is not provided');
    });
  });

  describe('GET /assets', () => {
    it('when a user has assets and others shared with them, then the list pages over both with the total', async () => {
      // Arrange
      const user = await api.user();
      const friend = await api.user();
      const own = [await api.createAsset(user.token), await api.createAsset(user.token)];
      const shared = await api.createAsset(friend.token);
      await api.createAsset(friend.token);
      await api.share(friend.token, shared.trackID, user.did);

      // Act
      const newest = await get(user.token, '/assets?limit=2');
      const oldestFirst = await get(user.token, '/assets?order=asc&offset=1&limit=5');

      // Assert
      expect(newest.status).toBe(200);
      const page = assetListSchema.parse(newest.body.data);
      expect(page.pagination).toEqual({ offset: 0, limit: 2, total: 3, order: 'desc' });
      expect(page.assets.map((a) => a.trackID)).toEqual([shared.trackID, own[1]?.trackID]);
      expect(newest.body.message).toBe('Retrieved 2 asset(s) out of a total of 3');
      expect(oldestFirst.body.data.assets.map((a: Asset) => a.trackID)).toEqual([
        own[1]?.trackID,
        shared.trackID,
      ]);
      expect(oldestFirst.body.data.assets[1]).toEqual(shared);
    });

    it('when fields are asked for, then only those are returned; an unknown field or bad page is 400', async () => {
      // Arrange
      const user = await api.user();
      const asset = await api.createAsset(user.token);

      // Act
      const picked = await get(user.token, '/assets?fields=trackID,assetHash');
      const unknownField = await get(user.token, '/assets?fields=trackID,secret');
      const badPage = await get(user.token, '/assets?limit=0&order=up');

      // Assert
      expect(picked.body.data.assets).toEqual([
        { trackID: asset.trackID, assetHash: asset.assetHash },
      ]);
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.errors[0].field).toBe('query.fields');
      expect(badPage.status).toBe(400);
      expect(badPage.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'query.limit',
        'query.order',
      ]);
    });
  });

  describe('shares', () => {
    it('when the owner shares and withdraws, then the share list follows; repeating a share changes nothing', async () => {
      // Arrange
      const owner = await api.user();
      const friend = await api.user();
      const asset = await api.createAsset(owner.token);

      // Act
      const shared = await shareCall('put', owner.token, asset.trackID, friend.did);
      const again = await shareCall('put', owner.token, asset.trackID, friend.did);
      const listed = await get(owner.token, `/assets/${asset.trackID}/shares`);
      const withdrawn = await shareCall('delete', owner.token, asset.trackID, friend.did);
      const withdrawnAgain = await shareCall('delete', owner.token, asset.trackID, friend.did);

      // Assert
      const expected = { trackID: asset.trackID, sharedWith: [friend.did] };
      expect(shared.status).toBe(200);
      expect(shared.body.data).toEqual(expected);
      expect(again.body.data).toEqual(expected);
      expect(listed.body.data).toEqual(expected);
      expect(withdrawn.status).toBe(200);
      expect(withdrawn.body.data).toEqual({ trackID: asset.trackID, sharedWith: [] });
      expect(withdrawnAgain.status).toBe(404);
    });

    it('when anyone but the owner manages shares, then 404, even the users it is shared with', async () => {
      // Arrange
      const owner = await api.user();
      const friend = await api.user();
      const stranger = await api.user();
      const asset = await api.createAsset(owner.token);
      await api.share(owner.token, asset.trackID, friend.did);

      // Act
      const byFriend = await shareCall('put', friend.token, asset.trackID, stranger.did);
      const byStranger = await shareCall('put', stranger.token, asset.trackID, stranger.did);
      const friendUnshares = await shareCall('delete', friend.token, asset.trackID, friend.did);
      const friendLists = await get(friend.token, `/assets/${asset.trackID}/shares`);

      // Assert
      expect([
        byFriend.status,
        byStranger.status,
        friendUnshares.status,
        friendLists.status,
      ]).toEqual([404, 404, 404, 404]);
      expect(
        (await get(owner.token, `/assets/${asset.trackID}/shares`)).body.data.sharedWith,
      ).toEqual([friend.did]);
    });

    it('when the user is unknown, is the owner, or is not a user DID, then 400 on path.userDid', async () => {
      // Arrange
      const owner = await api.user();
      const asset = await api.createAsset(owner.token);

      // Act
      const responses = await Promise.all([
        shareCall('put', owner.token, asset.trackID, 'did:user:nobody-here'),
        shareCall('put', owner.token, asset.trackID, owner.did),
        shareCall('put', owner.token, asset.trackID, 'alice'),
      ]);

      // Assert
      expect(responses.map((r) => r.status)).toEqual([400, 400, 400]);
      expect(
        responses.map((r) => (r.body as { errors: { field: string }[] }).errors[0]?.field),
      ).toEqual(['path.userDid', 'path.userDid', 'path.userDid']);
    });
  });
});
