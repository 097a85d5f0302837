import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callerStateDigest } from '@trustpoint/test-database';
import { createApiServer } from '@trustpoint/http';
import {
  fuzzSettingsFromEnv,
  operationsWithoutGenerator,
  runHttpFuzz,
  servedOperations,
  type HttpFuzzTarget,
} from '@trustpoint/test-kit/fuzz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACK_API_BASE_PATH } from '../src/server.js';
import { startTrackApi, tokenFor, type TrackApiFixture } from './support/track-api-fixture.js';
import { request } from './support/checked-request.js';

// One backend, not both: PostgreSQL where DATABASE_URL is set (CI), else PGlite.
const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';
// 5,000 cases on PostgreSQL (CI: 10,000 with the other API's), 1,000 on the slower PGlite.
const settings = fuzzSettingsFromEnv({
  seed: 20_261_124,
  runs: backend === 'postgres' ? 5_000 : 1_000,
});

describe(`HTTP fuzz of the asset-tracking API on ${backend}`, () => {
  let api: TrackApiFixture;
  let server: Server;
  let target: HttpFuzzTarget;

  beforeAll(async () => {
    api = await startTrackApi(backend);
    // The server the launcher listens with: its answers to requests Node cannot parse count too.
    server = createApiServer(api.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    const main = await api.user({ credits: 1_000_000 });
    const poor = await api.user({ credits: 0 });
    const other = await api.user();
    const auth = { Authorization: `Bearer ${main.token}` };

    // Ids the generated paths and bodies use, so requests reach past the lookups; the endpoint
    // first, so the evidences' events are its.
    const key = await request(api.app)
      .post(`${TRACK_API_BASE_PATH}/api-keys`)
      .set(auth)
      .send({ name: 'fuzz key' });
    const { id: keyId, key: keySecret } = key.body.data as { id: string; key: string };
    const endpoint = await request(api.app)
      .post(`${TRACK_API_BASE_PATH}/webhooks/endpoints`)
      .set(auth)
      .send({ url: 'http://127.0.0.1:9/hook' });
    const endpointId = String(endpoint.body.data.id);
    const assets = [await api.createAsset(main.token), await api.createAsset(other.token)];
    const evidence = await api.addEvidence(main.token, assets[0]?.trackID ?? '');
    await api.share(main.token, assets[0]?.trackID ?? '', other.did);
    const events = await api.db.knex('webhook_events').select<{ id: string }[]>('id').limit(3);

    target = {
      port,
      apis: [{ basePath: TRACK_API_BASE_PATH }],
      authorizations: [
        { weight: 14, value: `Bearer ${main.token}` },
        { weight: 1, value: `Bearer ${poor.token}` },
        { weight: 1, value: `Bearer ${other.token}` },
        { weight: 1, value: `Bearer ${keySecret}` },
        { weight: 1, value: `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}` },
        {
          weight: 1,
          value: `Bearer ${await tokenFor(main.id, 'another secret of 32 characters!!')}`,
        },
        { weight: 1, value: undefined },
      ],
      known: {
        trackID: assets.map((asset) => asset.trackID),
        assetId: assets.map((asset) => asset.assetId),
        userDid: [other.did, main.did, poor.did],
        id: [evidence.hash, endpointId],
        keyId: [keyId],
        eventId: events.map((event) => event.id),
        networkId: ['31337'],
        client_id: [keyId],
        client_secret: [keySecret],
      },
      stateDigest: () => callerStateDigest(api.db.knex),
    };
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  it('when the served document is read, then every documented operation has a generator', async () => {
    const { operations } = await servedOperations(target.port, target.apis);

    expect(operations.length).toBeGreaterThan(15);
    expect(operationsWithoutGenerator(operations, target.known)).toEqual([]);
  });

  it('when generated requests are sent, then none is dropped, answered 5xx, answered off the document or catalogue, or changes the state while refused', async () => {
    const outcome = await runHttpFuzz(target, settings, 'track-api fuzz');

    console.log('track-api fuzz answers by status:', Object.fromEntries(outcome.casesByStatus));
    if (settings.path === undefined && settings.runs >= 1_000) {
      const unreached = outcome.operations.filter(
        (operation) => !outcome.casesByOperation.has(operation.name),
      );
      expect(unreached.map((operation) => operation.name)).toEqual([]);
    }
  }, 900_000);
});
