import { randomUUID } from 'node:crypto';
import { setUserDisabled } from '@trustpoint/db';
import {
  acceptedAuthorization,
  REFUSED_TOKEN_CASES,
  refusedTokenBody,
  tokenCaseContext,
  type TokenCaseContext,
} from '@trustpoint/test-kit/security';
import { databaseDigest } from '@trustpoint/test-database';
import { beforeAll, describe, expect, it } from 'vitest';

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
        expireApiKey: async (id) => {
          await api.db
            .knex('api_keys')
            .where('id', id)
            .update({ expires_at: new Date(Date.now() - 1_000) });
        },
      });
    });

    it('when the token is valid, then the asset is created (the control)', async () => {
      // Arrange
      const before = await databaseDigest(api.db.knex);

      // Act
      const response = await createAsset(await acceptedAuthorization(context));

      // Assert
      expect(response.status).toBe(201);
      expect(await databaseDigest(api.db.knex)).not.toBe(before);
    });

    it('when a genuine token of the configured OpenID Connect issuer names the user, then it is accepted (the control of the key-confusion cases)', async () => {
      // Act
      const response = await createAsset(
        `Bearer ${await oidc.token(OIDC_AUDIENCE, context.userId)}`,
      );

      // Assert
      expect(response.status).toBe(201);
    });

    it.each(REFUSED_TOKEN_CASES)(
      'when the token is $name, then 401 "$message" and nothing changes',
      async (refused) => {
        // Arrange
        const authorization = await refused.authorization(context);
        const before = await databaseDigest(api.db.knex);

        // Act
        const response = await createAsset(authorization);

        // Assert
        expect(response.status).toBe(401);
        expect(response.body).toEqual(refusedTokenBody(refused));
        expect(await databaseDigest(api.db.knex)).toBe(before);
      },
    );
  });
}
