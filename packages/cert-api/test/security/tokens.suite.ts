import { randomUUID } from 'node:crypto';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { findUserAccount } from '@trustpoint/db';
import { databaseDigest } from '@trustpoint/test-database';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import {
  expireApiKeyIn,
  tokenCaseContext,
  type TokenCaseContext,
} from '@trustpoint/test-kit/security';
import { refusedTokenTests } from '@trustpoint/test-kit/suites';
import type supertest from 'supertest';
import { beforeAll, describe, expect } from 'vitest';

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
        expireApiKey: expireApiKeyIn(api.db.knex),
      });
      expect((await findUserAccount(api.db.knex, disabled.id))?.disabledAt).toBeInstanceOf(Date);
    });

    describe.each(TARGETS)('$name', (target) => {
      refusedTokenTests(() => ({
        context,
        oidc,
        oidcAudience: OIDC_AUDIENCE,
        digest: () => databaseDigest(api.db.knex),
        send: (authorization) => target.send(api, authorization),
      }));
    });
  });
}
