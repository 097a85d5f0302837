import { randomUUID } from 'node:crypto';
import { setUserDisabled } from '@trustpoint/db';
import { databaseDigest } from '@trustpoint/test-database';
import {
  expireApiKeyIn,
  tokenCaseContext,
  type TokenCaseContext,
} from '@trustpoint/test-kit/security';
import { refusedTokenTests } from '@trustpoint/test-kit/suites';
import { beforeAll, describe } from 'vitest';

import { request } from '../support/checked-request.js';
import { BASE, JWT_SECRET, type TrackApiFixture } from '../support/track-api-fixture.js';

import { OIDC_AUDIENCE, type SecurityApi } from './shared-api.js';

// The cases shared with the certificate and admin APIs (packages/cert-api/test/security/tokens.suite.ts).

/** The refused-token cases against the track API. */
export function tokensSuite(shared: () => SecurityApi): void {
  describe('bearer tokens', () => {
    let api: TrackApiFixture;
    let oidc: SecurityApi['oidc'];
    let context: TokenCaseContext;

    /** Creates an asset: a request that changes the database when its token is accepted. */
    const createAsset = (authorization: string | undefined) => {
      const call = request(api.app)
        .post(`${BASE}/assets`)
        .send({ assetId: `asset-${randomUUID()}`, data: { id: 'pallet' }, networkId: '31337' });
      return authorization === undefined ? call : call.set('Authorization', authorization);
    };

    beforeAll(async () => {
      ({ api, oidc } = shared());
      const user = await api.user();
      const other = await api.user();
      const disabled = await api.user();
      context = await tokenCaseContext({
        app: api.app,
        basePath: BASE,
        secret: JWT_SECRET,
        userId: user.id,
        otherUserId: other.id,
        disabledUserId: disabled.id,
        // What the admin API's POST /users/{id}/disable does (the admin API is served by the
        // certificate API, whose suite disables through it).
        disableUser: async (id) => {
          await setUserDisabled(api.db.knex, id, true);
        },
        oidc,
        oidcAudience: OIDC_AUDIENCE,
        expireApiKey: expireApiKeyIn(api.db.knex),
      });
    });

    refusedTokenTests(() => ({
      context,
      oidc,
      oidcAudience: OIDC_AUDIENCE,
      digest: () => databaseDigest(api.db.knex),
      send: createAsset,
    }));
  });
}
