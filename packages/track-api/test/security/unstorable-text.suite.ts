import { createApiKey, createWebhookEndpoint } from '@trustpoint/test-kit/fixtures';
import { checkedRequest, type OpenApiDocument } from '@trustpoint/test-kit/openapi';
import { unstorableTextCases, type SentUnstorableTextCase } from '@trustpoint/test-kit/security';
import { unstorableTextTest } from '@trustpoint/test-kit/suites';
import { beforeAll, describe, expect, it } from 'vitest';

import { TRACK_API_BASE_PATH } from '../../src/server.js';
import type { SecurityApi } from './shared-api.js';

// The shared text rule (`unstorableTextTest`) on every documented request body of the track API.

export function unstorableTextSuite(get: () => SecurityApi): void {
  describe('unstorable text in request bodies', () => {
    const cases: SentUnstorableTextCase[] = [];

    beforeAll(async () => {
      const { api } = get();
      const owner = await api.user({ credits: 1_000 });
      const other = await api.user();
      const authorization = `Bearer ${owner.token}`;
      const request = checkedRequest(TRACK_API_BASE_PATH)(api.app);
      const { id: keyId, key: keySecret } = await createApiKey(
        request,
        TRACK_API_BASE_PATH,
        owner.token,
        { name: 'text rule' },
      );
      const endpoint = await createWebhookEndpoint(request, TRACK_API_BASE_PATH, owner.token, {
        url: 'http://127.0.0.1:9/hook',
      });
      const asset = await api.createAsset(owner.token);
      const served = await request.get(`${TRACK_API_BASE_PATH}/openapi.json`);
      cases.push(
        ...unstorableTextCases({
          document: served.body as OpenApiDocument,
          basePath: TRACK_API_BASE_PATH,
          known: {
            trackID: [asset.trackID],
            userDid: [other.did],
            id: [endpoint.id],
            keyId: [keyId],
            networkId: ['31337'],
            client_id: [keyId],
            client_secret: [keySecret],
          },
        }).map((testCase) => ({ basePath: TRACK_API_BASE_PATH, testCase, authorization })),
      );
    });

    it('when the document is read, then every body that takes text is covered', () => {
      const names = cases.map(({ testCase }) => testCase.name);

      expect(names).toEqual(
        expect.arrayContaining([
          `POST ${TRACK_API_BASE_PATH}/assets body.assetId (U+0000)`,
          `POST ${TRACK_API_BASE_PATH}/assets body.data.member (a lone surrogate)`,
          `POST ${TRACK_API_BASE_PATH}/assets body.data.<text> (U+0000)`,
          `POST ${TRACK_API_BASE_PATH}/assets/{trackID}/transactions body.metadata.member (U+0000)`,
          `POST ${TRACK_API_BASE_PATH}/api-keys body.name (a lone surrogate)`,
          `POST ${TRACK_API_BASE_PATH}/webhooks/endpoints body.description (U+0000)`,
          `POST ${TRACK_API_BASE_PATH}/oauth/token body.scope (U+0000)`,
        ]),
      );
    });

    unstorableTextTest(cases, () => get().api);
  });
}
