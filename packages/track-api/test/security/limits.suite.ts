import { databaseDigest } from '@trustpoint/test-database';
import type supertest from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';

import { request } from '../support/checked-request.js';
import { BASE, type TestUser, type TrackApiFixture } from '../support/track-api-fixture.js';
import type { SecurityApi } from './shared-api.js';

// Bodies over the limit on the track API's own routes. Slow clients, multipart parts and URL
// fetches are the certificate API's suite (the same server and body parser).

/** Over the 1 MiB JSON limit. */
const OVERSIZED = 'x'.repeat(1_100_000);

/** Limits on what clients send to the track API. */
export function limitsSuite(shared: () => SecurityApi): void {
  describe('limits', () => {
    let api: TrackApiFixture;
    let user: TestUser;
    let trackID: string;

    beforeAll(async () => {
      ({ api } = shared());
      user = await api.user();
      ({ trackID } = await api.createAsset(user.token));
    });

    async function expectTooLarge(send: () => PromiseLike<supertest.Response>) {
      const before = await databaseDigest(api.db.knex);
      const response = await send();
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ statusCode: 413, type: expect.any(String) });
      expect(await databaseDigest(api.db.knex)).toBe(before);
    }

    it('when an asset is over 1 MiB, then 413 and nothing changes', async () => {
      await expectTooLarge(() =>
        request(api.app)
          .post(`${BASE}/assets`)
          .set('Authorization', `Bearer ${user.token}`)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ assetId: 'big', data: { blob: OVERSIZED }, networkId: '31337' })),
      );
    });

    it('when an evidence is over 1 MiB, then 413 and nothing changes', async () => {
      await expectTooLarge(() =>
        request(api.app)
          .post(`${BASE}/assets/${encodeURIComponent(trackID)}/transactions`)
          .set('Authorization', `Bearer ${user.token}`)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ metadata: { blob: OVERSIZED } })),
      );
    });
  });
}
