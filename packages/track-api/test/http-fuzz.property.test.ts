import { callerStateDigest } from '@trustpoint/test-database';
import { createApiKey, createWebhookEndpoint } from '@trustpoint/test-kit/fixtures';
import { fuzzSettingsFromEnv } from '@trustpoint/test-kit/fuzz';
import { callerAuthorizations, describeHttpFuzz } from '@trustpoint/test-kit/suites';
import { TRACK_API_BASE_PATH } from '../src/server.js';
import { request } from './support/checked-request.js';
import { startTrackApi, tokenFor } from './support/track-api-fixture.js';

// One backend, not both: PostgreSQL where DATABASE_URL is set (CI), else PGlite.
const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';
// 5,000 cases on PostgreSQL (CI: 10,000 with the other API's), 1,000 on the slower PGlite.
const settings = fuzzSettingsFromEnv({
  seed: 20_261_124,
  runs: backend === 'postgres' ? 5_000 : 1_000,
});

describeHttpFuzz({
  title: `HTTP fuzz of the asset-tracking API on ${backend}`,
  label: 'track-api fuzz',
  settings,
  leastOperations: 15,
  async start() {
    const api = await startTrackApi(backend);

    const main = await api.user({ credits: 1_000_000 });
    const poor = await api.user({ credits: 0 });
    const other = await api.user();

    // Ids the generated paths and bodies use, so requests reach past the lookups; the endpoint
    // first, so the evidences' events are its.
    const key = await createApiKey(request(api.app), TRACK_API_BASE_PATH, main.token, {
      name: 'fuzz key',
    });
    const endpoint = await createWebhookEndpoint(
      request(api.app),
      TRACK_API_BASE_PATH,
      main.token,
      {
        url: 'http://127.0.0.1:9/hook',
      },
    );
    const assets = [await api.createAsset(main.token), await api.createAsset(other.token)];
    const evidence = await api.addEvidence(main.token, assets[0]?.trackID ?? '');
    await api.share(main.token, assets[0]?.trackID ?? '', other.did);
    const events = await api.db.knex('webhook_events').select<{ id: string }[]>('id').limit(3);

    return {
      app: api.app,
      target: {
        apis: [{ basePath: TRACK_API_BASE_PATH }],
        authorizations: callerAuthorizations({
          main: main.token,
          poor: poor.token,
          others: [other.token],
          key,
          forged: await tokenFor(main.id, 'another secret of 32 characters!!'),
        }),
        known: {
          trackID: assets.map((asset) => asset.trackID),
          assetId: assets.map((asset) => asset.assetId),
          userDid: [other.did, main.did, poor.did],
          id: [evidence.hash, endpoint.id],
          keyId: [key.id],
          eventId: events.map((event) => event.id),
          networkId: ['31337'],
          client_id: [key.id],
          client_secret: [key.key],
        },
        stateDigest: () => callerStateDigest(api.db.knex),
      },
      stop: () => api.close(),
    };
  },
});
