import { randomUUID } from 'node:crypto';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { createUser, savePlan } from '@trustpoint/db';
import { createApiKey, createWebhookEndpoint } from '@trustpoint/test-kit/fixtures';
import { type KnownValues } from '@trustpoint/test-kit/fuzz';
import { checkedRequest, type OpenApiDocument } from '@trustpoint/test-kit/openapi';
import { unstorableTextCases, type SentUnstorableTextCase } from '@trustpoint/test-kit/security';
import { unstorableTextTest } from '@trustpoint/test-kit/suites';
import { beforeAll, describe, expect, it } from 'vitest';

import { CERT_API_BASE_PATH } from '../../src/server.js';
import { tokenFor } from '../support/cert-api-fixture.js';
import type { SecurityApi } from './shared-api.js';

// The shared text rule (`unstorableTextTest`) on every documented request body of the certificate
// and admin APIs.

export function unstorableTextSuite(get: () => SecurityApi): void {
  describe('unstorable text in request bodies', () => {
    const cases: SentUnstorableTextCase[] = [];

    beforeAll(async () => {
      const { api } = get();
      const owner = await api.user({ credits: 1_000 });
      const adminId = `admin-${randomUUID()}`;
      await savePlan(api.db.knex, { id: `plan-${adminId}`, name: 'p', networkIds: ['31337'] });
      await createUser(api.db.knex, {
        id: adminId,
        displayName: adminId,
        planId: `plan-${adminId}`,
        role: 'admin',
      });
      const user = `Bearer ${owner.token}`;
      const admin = `Bearer ${await tokenFor(adminId)}`;
      const agent = checkedRequest(CERT_API_BASE_PATH)(api.app);
      const { id: keyId, key: keySecret } = await createApiKey(
        agent,
        CERT_API_BASE_PATH,
        owner.token,
        { name: 'text rule' },
      );
      const { id: endpointId } = await createWebhookEndpoint(
        agent,
        CERT_API_BASE_PATH,
        owner.token,
        {
          url: 'http://127.0.0.1:9/hook',
        },
      );
      const certificate = await api.certify(owner.token, { public: true });
      const known: KnownValues = {
        id: [certificate.certID],
        certID: [certificate.certID],
        networkId: ['31337'],
        keyId: [keyId],
        client_id: [keyId],
        client_secret: [keySecret],
      };
      const documents: [string, string, KnownValues][] = [
        [CERT_API_BASE_PATH, user, known],
        [ADMIN_API_BASE_PATH, admin, { ...known, id: [owner.id], planId: [`plan-${owner.id}`] }],
      ];
      for (const [basePath, authorization, values] of documents) {
        const served = await checkedRequest(basePath)(api.app).get(`${basePath}/openapi.json`);
        const document = served.body as OpenApiDocument;
        cases.push(
          ...unstorableTextCases({
            document,
            basePath,
            known: values,
            pathValue: (operation, parameter) =>
              parameter === 'id' && operation.includes('/webhooks/') ? endpointId : undefined,
            query: (operation, variant) => {
              if (operation !== `POST ${CERT_API_BASE_PATH}/certificates`) return undefined;
              const type = /^(Content|Asset|Url|File)CertificateBody$/.exec(variant ?? '')?.[1];
              return `type=${(type ?? 'file').toLowerCase()}&networkId=31337`;
            },
          }).map((testCase) => ({ basePath, testCase, authorization })),
        );
      }
    });

    it('when the documents are read, then every body that takes text is covered', () => {
      const operations = new Set(cases.map(({ testCase }) => testCase.operation));

      expect([...operations].sort()).toEqual(
        expect.arrayContaining([
          `POST ${CERT_API_BASE_PATH}/api-keys`,
          `POST ${CERT_API_BASE_PATH}/certificates`,
          `POST ${CERT_API_BASE_PATH}/oauth/token`,
          `POST ${CERT_API_BASE_PATH}/webhooks/endpoints`,
          `POST ${ADMIN_API_BASE_PATH}/users`,
          `POST ${ADMIN_API_BASE_PATH}/users/{id}/api-keys`,
          `POST ${ADMIN_API_BASE_PATH}/plans`,
        ]),
      );
      const names = cases.map(({ testCase }) => testCase.name);
      expect(names).toEqual(
        expect.arrayContaining([
          `POST ${CERT_API_BASE_PATH}/api-keys body.name (U+0000)`,
          `POST ${CERT_API_BASE_PATH}/api-keys body.name (a lone surrogate)`,
          `POST ${CERT_API_BASE_PATH}/webhooks/endpoints body.description (U+0000)`,
          `POST ${CERT_API_BASE_PATH}/certificates (ContentCertificateBody) body.content.member (a lone surrogate)`,
          `POST ${CERT_API_BASE_PATH}/certificates (ContentCertificateBody) body.content.<text> (U+0000)`,
          `POST ${CERT_API_BASE_PATH}/certificates body.body.name (U+0000)`,
          `POST ${CERT_API_BASE_PATH}/oauth/token body.client_id (U+0000)`,
          `POST ${ADMIN_API_BASE_PATH}/users/{id}/api-keys body.name (U+0000)`,
        ]),
      );
    });

    unstorableTextTest(cases, () => get().api);
  });
}
