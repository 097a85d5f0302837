import { randomUUID } from 'node:crypto';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { findUserAccount } from '@trustpoint/db';
import {
  acceptedAuthorization,
  REFUSED_TOKEN_CASES,
  refusedTokenBody,
  tokenCaseContext,
  type TokenCaseContext,
} from '@trustpoint/test-kit/security';
import { databaseDigest } from '@trustpoint/test-database';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import type supertest from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';

import { JWT_SECRET, type CertApiFixture } from '../support/cert-api-fixture.js';
import { request } from '../support/checked-request.js';
import { OIDC_AUDIENCE, type SecurityApi } from './shared-api.js';

// The shared cases (`REFUSED_TOKEN_CASES`) run here against the certificate API and the admin API
// it serves, and in the track API's suite against that one. Single cases of the token kinds stay
// beside their code: packages/http/test/authenticate.test.ts, packages/identity/test/*.test.ts.

const adminRequest = checkedRequest(ADMIN_API_BASE_PATH);

interface Target {
  name: string;
  /** A request that changes the database when its token is accepted. */
  send(api: CertApiFixture, authorization: string | undefined): supertest.Test;
}

const TARGETS: Target[] = [
  {
    name: 'certificate API, POST /certificates',
    send: (api, authorization) => {
      const call = request(api.app)
        .post('/cert/v2/certificates?type=content&networkId=31337')
        .send({ name: 'Doc', description: '', content: { n: randomUUID() } });
      return authorization === undefined ? call : call.set('Authorization', authorization);
    },
  },
  {
    name: 'admin API, POST /plans',
    send: (api, authorization) => {
      const call = adminRequest(api.app)
        .post('/admin/v1/plans')
        .send({ id: `plan-${randomUUID()}`, name: 'Plan', networkIds: [] });
      return authorization === undefined ? call : call.set('Authorization', authorization);
    },
  },
];

/** The refused-token cases against the certificate API and the admin API it serves. */
export function tokensSuite(shared: () => SecurityApi): void {
  describe('bearer tokens', () => {
    let api: CertApiFixture;
    let oidc: SecurityApi['oidc'];
    let context: TokenCaseContext;

    beforeAll(async () => {
      ({ api, oidc } = shared());
      // An administrator, so that every target accepts the user's valid token.
      const admin = await api.user();
      await api.db.knex('users').where('id', admin.id).update({ role: 'admin' });
      const other = await api.user();
      const disabled = await api.user();
      context = await tokenCaseContext({
        app: api.app,
        basePath: '/cert/v2',
        secret: JWT_SECRET,
        userId: admin.id,
        otherUserId: other.id,
        disabledUserId: disabled.id,
        disableUser: async (id) => {
          await adminRequest(api.app)
            .post(`/admin/v1/users/${id}/disable`)
            .set('Authorization', `Bearer ${admin.token}`)
            .expect(200);
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
      expect((await findUserAccount(api.db.knex, disabled.id))?.disabledAt).toBeInstanceOf(Date);
    });

    describe.each(TARGETS)('$name', (target) => {
      it('when the token is valid, then the request is carried out (the control)', async () => {
        // Arrange
        const before = await databaseDigest(api.db.knex);

        // Act
        const response = await target.send(api, await acceptedAuthorization(context));

        // Assert
        expect(response.status).toBe(201);
        expect(await databaseDigest(api.db.knex)).not.toBe(before);
      });

      it('when a genuine token of the configured OpenID Connect issuer names the user, then it is accepted (the control of the key-confusion cases)', async () => {
        // Act
        const response = await target.send(
          api,
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
          const response = await target.send(api, authorization);

          // Assert
          expect(response.status).toBe(401);
          expect(response.body).toEqual(refusedTokenBody(refused));
          expect(await databaseDigest(api.db.knex)).toBe(before);
        },
      );
    });
  });
}
