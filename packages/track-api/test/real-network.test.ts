import { assetSchema, type Asset } from '@trustpoint/domain';
import { testBackends } from '@trustpoint/test-database';
import { confirmationsOf } from '@trustpoint/test-kit/fixtures';
import { deliveringWebhooks } from '@trustpoint/test-kit/suites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

const BLOCK_MS = 2_000;
const CONFIRMATIONS = 2;

// Asynchronous assets and evidences on a node that mines like a real network: a block every 2 s
// whatever arrives (automine off) and 2 confirmations, so an answer can only be "pending" and
// anchoring takes blocks. The webhooks go to a real receiver that fails first and checks signatures.
describe.each(testBackends())(
  'Evidences on a chain that mines like a real one, on %s',
  (backend) => {
    let api: TrackApiFixture;

    beforeAll(async () => {
      api = await startTrackApi(backend, {
        intervalMiningMs: BLOCK_MS,
        confirmations: CONFIRMATIONS,
      });
    });

    afterAll(async () => {
      await api.close();
    });

    /** Delivers its webhooks; `endpointFor` makes a receiver and an endpoint of a user at it. */
    const { endpointFor } = deliveringWebhooks(
      () => ({ agent: request(api.app), knex: api.db.knex, webhooks: api.webhooks }),
      BASE,
    );

    const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

    /** Polls the Location as a client would; the asset as it is after 30 s otherwise. */
    const untilAnchored = async (location: string, token: string): Promise<Asset> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const response = await request(api.app).get(location).set(auth(token));
        expect(response.status).toBe(200);
        const asset = assetSchema.parse(response.body.data);
        if (asset.status !== 'pending' || Date.now() > deadline) return asset;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    it('when an asset and an evidence are sent with respond-async, then 202 pending, anchored after 2 confirmations, and evidence.anchored delivered signed after failed attempts', async () => {
      // Arrange: an endpoint at a receiver that fails its first two attempts.
      const owner = await api.user();
      const { receiver } = await endpointFor(owner.token, { events: ['evidence.anchored'] }, 2);

      // Act: the asset (its first evidence), then an evidence, before any block holds them.
      const created = await request(api.app)
        .post(`${BASE}/assets`)
        .set(auth(owner.token))
        .set('Prefer', 'respond-async')
        .send({ assetId: `pallet-${String(Math.random())}`, data: { v: 1 }, networkId: 31337 });
      const asset = assetSchema.parse(created.body.data);
      const added = await request(api.app)
        .post(`${BASE}/assets/${asset.trackID}/transactions`)
        .set(auth(owner.token))
        .set('Prefer', 'respond-async')
        .send({ metadata: { step: 'shipped' } });

      // Assert: both acknowledged pending, at the asset's Location.
      const location = `${BASE}/assets/${encodeURIComponent(asset.trackID)}`;
      expect(created.status).toBe(202);
      expect(created.headers.location).toBe(location);
      expect(asset.status).toBe('pending');
      expect(added.status).toBe(202);
      expect(added.headers.location).toBe(location);
      expect(added.body.data).toMatchObject({ status: 'pending', metadata: { step: 'shipped' } });
      // Anchored later, never before the network's confirmations.
      const anchored = await untilAnchored(location, owner.token);
      expect(anchored.status).toBe('anchored');
      expect(anchored.transactions).toHaveLength(2);
      for (const evidence of anchored.transactions) {
        expect(evidence).toMatchObject({
          status: 'anchored',
          smartContract: api.network.evidenceRepository,
          transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as unknown,
        });
        expect(
          await confirmationsOf(api.chain.url, evidence.transactionHash ?? ''),
        ).toBeGreaterThanOrEqual(CONFIRMATIONS);
      }
      expect(anchored.transactions.map((evidence) => evidence.hash)).toContain(
        added.body.data.hash,
      );
      // One verified evidence.anchored per evidence, after the receiver's two failures.
      for (const evidence of anchored.transactions) {
        const delivered = await receiver.waitFor(
          (w) =>
            w.status === 204 &&
            (w.verified?.data.evidence as { hash?: string } | undefined)?.hash === evidence.hash,
          20_000,
        );
        expect(delivered.verified).toMatchObject({
          type: 'evidence.anchored',
          data: {
            trackID: asset.trackID,
            assetId: asset.assetId,
            assetHash: asset.assetHash,
            evidence: {
              hash: evidence.hash,
              timestamp: evidence.timestamp,
              userOwner: owner.did,
              networkId: 31337,
              smartContract: api.network.evidenceRepository,
              transactionHash: evidence.transactionHash,
            },
          },
        });
      }
      expect(receiver.received.slice(0, 2).map((w) => w.status)).toEqual([500, 500]);
      expect(receiver.received.every((w) => w.verified !== undefined)).toBe(true);
    });
  },
);
