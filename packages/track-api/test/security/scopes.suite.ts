import { databaseDigest } from '@trustpoint/test-database';
import { apiKeysOf } from '@trustpoint/test-kit/fixtures';
import { type OpenApiDocument } from '@trustpoint/test-kit/openapi';
import { checkEveryOperationScope } from '@trustpoint/test-kit/security';
import { beforeAll, describe, expect, it } from 'vitest';

import { request } from '../support/checked-request.js';
import { BASE, type TrackApiFixture } from '../support/track-api-fixture.js';
import type { SecurityApi } from './shared-api.js';

/** Every documented operation with a token, tried with a key without its scope and with only it. */
export function scopesSuite(shared: () => SecurityApi): void {
  describe('scopes of credentials', () => {
    let api: TrackApiFixture;
    let document: OpenApiDocument;

    beforeAll(async () => {
      ({ api } = shared());
      document = (await request(api.app).get(`${BASE}/openapi.json`)).body as OpenApiDocument;
    });

    it('when a key lacks the scope an operation documents, then 403 naming it and nothing changes; with only that scope, it is not refused for its scope', async () => {
      // Arrange: an asset of the user, so that its routes go past the lookup.
      const user = await api.user({ credits: 1_000 });
      const asset = await api.createAsset(user.token);

      // Act
      const { checked, failures } = await checkEveryOperationScope({
        request,
        app: api.app,
        basePath: BASE,
        document,
        keyWith: apiKeysOf(request(api.app), BASE, user.token),
        digest: () => databaseDigest(api.db.knex),
        pathValues: { trackID: asset.trackID },
      });

      // Assert
      expect(failures).toEqual([]);
      expect(checked).toEqual(
        expect.arrayContaining([
          'POST /assets',
          'GET /assets',
          'POST /assets/{trackID}/transactions',
          'GET /evidences/{id}',
          'GET /account',
          'POST /api-keys',
          'GET /webhooks/endpoints',
        ]),
      );
    });

    it('when a key has read only, then it reads (200) and cannot create (403)', async () => {
      // Arrange
      const user = await api.user({ credits: 1_000 });
      const asset = await api.createAsset(user.token);
      const reader = await apiKeysOf(request(api.app), BASE, user.token)(['read']);
      const before = await databaseDigest(api.db.knex);

      // Act
      const list = await request(api.app)
        .get(`${BASE}/assets`)
        .set('Authorization', `Bearer ${reader}`);
      const one = await request(api.app)
        .get(`${BASE}/assets/${encodeURIComponent(asset.trackID)}`)
        .set('Authorization', `Bearer ${reader}`);
      const creation = await request(api.app)
        .post(`${BASE}/assets`)
        .set('Authorization', `Bearer ${reader}`)
        .send({ assetId: 'read-only', data: { id: '1', version: '1' }, networkId: 31337 });

      // Assert
      expect(list.status).toBe(200);
      expect(one.status).toBe(200);
      expect(creation.status).toBe(403);
      expect(creation.body).toMatchObject({
        statusCode: 403,
        type: 'Forbidden Error',
        errors: [{ field: 'scope', error: expect.stringContaining('"track"') as string }],
      });
      expect(await databaseDigest(api.db.knex)).toBe(before);
    });
  });
}
