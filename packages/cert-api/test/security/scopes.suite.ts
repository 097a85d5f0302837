import { randomUUID } from 'node:crypto';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { databaseDigest } from '@trustpoint/test-database';
import { apiKeysOf } from '@trustpoint/test-kit/fixtures';
import { checkedRequest, type OpenApiDocument } from '@trustpoint/test-kit/openapi';
import { checkEveryOperationScope } from '@trustpoint/test-kit/security';
import { beforeAll, describe, expect, it } from 'vitest';

import type { CertApiFixture } from '../support/cert-api-fixture.js';
import { request } from '../support/checked-request.js';
import type { SecurityApi } from './shared-api.js';

const BASE = '/cert/v2';
const adminRequest = checkedRequest(ADMIN_API_BASE_PATH);

/**
 * Every documented operation of the certificate API and the admin API it serves, tried with a key
 * without its scope and with only it; and the cases of a customer's read-only key.
 */
export function scopesSuite(shared: () => SecurityApi): void {
  describe('scopes of credentials', () => {
    let api: CertApiFixture;
    let certDocument: OpenApiDocument;
    let adminDocument: OpenApiDocument;

    beforeAll(async () => {
      ({ api } = shared());
      certDocument = (await request(api.app).get(`${BASE}/openapi.json`)).body as OpenApiDocument;
      adminDocument = (await adminRequest(api.app).get(`${ADMIN_API_BASE_PATH}/openapi.json`))
        .body as OpenApiDocument;
    });

    it('when a key lacks the scope a certificate API operation documents, then 403 naming it and nothing changes; with only that scope, it is not refused for its scope', async () => {
      // Arrange: a certificate of the user, so that its routes go past the lookup.
      const user = await api.user({ credits: 1_000, qualified: true });
      const certificate = await api.certify(user.token);

      // Act
      const { checked, failures } = await checkEveryOperationScope({
        request,
        app: api.app,
        basePath: BASE,
        document: certDocument,
        keyWith: apiKeysOf(request(api.app), BASE, user.token),
        digest: () => databaseDigest(api.db.knex),
        pathValues: { type: 'certID', id: certificate.certID },
      });

      // Assert
      expect(failures).toEqual([]);
      expect(checked).toEqual(
        expect.arrayContaining([
          'POST /certificates',
          'GET /certificates',
          'GET /certificates/{type}/{id}',
          'PATCH /certificates/{type}/{id}/revoke',
          'POST /certificates/{type}/{id}/signature',
          'GET /trustpoints/{type}/{id}',
          'GET /account',
          'GET /account/credit-movements',
          'POST /api-keys',
          'DELETE /api-keys/{keyId}',
          'POST /webhooks/endpoints',
        ]),
      );
    });

    it("when an administrator's key lacks the admin scope, then every admin operation is 403 naming it", async () => {
      // Arrange
      const admin = await api.user();
      await api.db.knex('users').where('id', admin.id).update({ role: 'admin' });

      // Act
      const { checked, failures } = await checkEveryOperationScope({
        request: adminRequest,
        app: api.app,
        basePath: ADMIN_API_BASE_PATH,
        document: adminDocument,
        keyWith: apiKeysOf(request(api.app), BASE, admin.token),
        digest: () => databaseDigest(api.db.knex),
        pathValues: { id: `nobody-${randomUUID()}` },
      });

      // Assert
      expect(failures).toEqual([]);
      expect(checked.length).toBeGreaterThan(10);
    });

    it('when a key has read only, then it reads (200) and cannot certify (403)', async () => {
      // Arrange
      const user = await api.user({ credits: 1_000 });
      const certificate = await api.certify(user.token);
      const reader = await apiKeysOf(request(api.app), BASE, user.token)(['read']);
      const before = await databaseDigest(api.db.knex);

      // Act
      const list = await request(api.app)
        .get(`${BASE}/certificates`)
        .set('Authorization', `Bearer ${reader}`);
      const one = await request(api.app)
        .get(`${BASE}/certificates/certID/${encodeURIComponent(certificate.certID)}`)
        .set('Authorization', `Bearer ${reader}`);
      const creation = await request(api.app)
        .post(`${BASE}/certificates?type=content&networkId=31337`)
        .set('Authorization', `Bearer ${reader}`)
        .send({ name: 'Doc', description: '', content: { n: randomUUID() } });
      const revocation = await request(api.app)
        .patch(
          `${BASE}/certificates/certID/${encodeURIComponent(certificate.certID)}/revoke?networkId=31337`,
        )
        .set('Authorization', `Bearer ${reader}`);

      // Assert
      expect(list.status).toBe(200);
      expect(one.status).toBe(200);
      for (const refused of [creation, revocation]) {
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({
          statusCode: 403,
          type: 'Forbidden Error',
          message: 'The credential does not have the scope this operation requires',
          errors: [
            {
              field: 'scope',
              error: 'This operation requires the scope "certify"; the credential has "read"',
            },
          ],
        });
      }
      expect(await databaseDigest(api.db.knex)).toBe(before);
    });

    it('when a token is narrowed to read at the token endpoint from a key that may certify, then it cannot certify', async () => {
      // Arrange
      const user = await api.user({ credits: 1_000 });
      const key = await apiKeysOf(request(api.app), BASE, user.token)(['read', 'certify']);
      const keyId = key.slice('tp_live_'.length, 'tp_live_'.length + 12);
      const issued = await request(api.app).post(`${BASE}/oauth/token`).type('form').send({
        grant_type: 'client_credentials',
        client_id: keyId,
        client_secret: key,
        scope: 'read',
      });
      const token = (issued.body as { access_token: string }).access_token;

      // Act
      const creation = await request(api.app)
        .post(`${BASE}/certificates?type=content&networkId=31337`)
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'Doc', description: '', content: { n: randomUUID() } });
      const list = await request(api.app)
        .get(`${BASE}/certificates`)
        .set('Authorization', `Bearer ${token}`);

      // Assert
      expect(issued.body).toMatchObject({ scope: 'read' });
      expect(creation.status).toBe(403);
      expect(list.status).toBe(200);
    });
  });
}
