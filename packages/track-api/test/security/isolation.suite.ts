import { randomUUID } from 'node:crypto';
import type { Asset } from '@trustpoint/domain';
import { databaseDigest } from '@trustpoint/test-database';
import { type OpenApiDocument } from '@trustpoint/test-kit/openapi';
import {
  expectRefusedAndUnchanged,
  SHARED_ISOLATION_CASES,
  webhookEventOf,
  type IsolationCase,
  type IsolationWorld,
} from '@trustpoint/test-kit/security';
import { isolationTests } from '@trustpoint/test-kit/suites';
import { beforeAll, describe, expect } from 'vitest';

import { request } from '../support/checked-request.js';
import { BASE, type TestUser, type TrackApiFixture } from '../support/track-api-fixture.js';
import type { SecurityApi } from './shared-api.js';

// Three users: the owner of two assets, a reader one of them is shared with, and another user.
// Every route of the track API (from the document it serves) is tried by the other user on the
// owner's assets and evidences, and by the reader beyond what sharing allows. Sharing lets the
// reader read the asset, verify its evidences and add evidences of their own (README), never
// manage its shares.

interface TrackWorld extends IsolationWorld {
  api: TrackApiFixture;
  reader: TestUser;
  owner: TestUser;
  other: TestUser;
}

/** An asset of the owner shared with the reader, and one not shared, each with an evidence. */
async function ownerAssets(world: TrackWorld) {
  const shared = await world.api.createAsset(world.owner.token);
  const unshared = await world.api.createAsset(world.owner.token);
  await world.api.share(world.owner.token, shared.trackID, world.reader.did);
  const sharedEvidence = await world.api.addEvidence(world.owner.token, shared.trackID);
  const unsharedEvidence = await world.api.addEvidence(world.owner.token, unshared.trackID);
  return { shared, unshared, sharedEvidence, unsharedEvidence };
}

const as = (user: TestUser) => `Bearer ${user.token}`;
const assetPath = (asset: Asset, rest = '') =>
  `${BASE}/assets/${encodeURIComponent(asset.trackID)}${rest}`;

const TRACK_CASES: readonly IsolationCase<TrackWorld>[] = [
  {
    operation: 'POST /assets',
    name: "the other user creating an asset with the owner's assetId gets one of their own; the owner's is unchanged",
    async run(world) {
      const assetId = `asset-${randomUUID()}`;
      const owners = await world.api.createAsset(world.owner.token, { assetId });
      const before = (
        await request(world.app).get(assetPath(owners)).set('Authorization', as(world.owner))
      ).body as unknown;

      const theirs = await world.api.createAsset(world.other.token, { assetId });

      expect(theirs.trackID).not.toBe(owners.trackID);
      expect(
        (await request(world.app).get(assetPath(owners)).set('Authorization', as(world.owner)))
          .body,
      ).toEqual(before);
    },
  },
  {
    operation: 'GET /assets',
    name: "the other user's list holds none of the owner's assets; the reader's holds the shared one only",
    async run(world) {
      const { shared, unshared } = await ownerAssets(world);
      const listOf = async (user: TestUser) => {
        const response = await request(world.app)
          .get(`${BASE}/assets?limit=100`)
          .set('Authorization', as(user));
        expect(response.status).toBe(200);
        return (response.body.data.assets as Asset[]).map((asset) => asset.trackID);
      };
      const others = await listOf(world.other);
      const readers = await listOf(world.reader);
      expect(others).not.toContain(shared.trackID);
      expect(others).not.toContain(unshared.trackID);
      expect(readers).toContain(shared.trackID);
      expect(readers).not.toContain(unshared.trackID);
    },
  },
  {
    operation: 'GET /assets/{trackID}',
    name: "the owner's assets are 404 to the other user; to the reader, all but the shared one",
    async run(world) {
      const { shared, unshared } = await ownerAssets(world);
      for (const [user, asset] of [
        [world.other, shared],
        [world.other, unshared],
        [world.reader, unshared],
      ] as const) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app).get(assetPath(asset)).set('Authorization', as(user)),
        );
      }
      const read = await request(world.app)
        .get(assetPath(shared))
        .set('Authorization', as(world.reader));
      expect(read.status).toBe(200);
    },
  },
  {
    operation: 'POST /assets/{trackID}/transactions',
    name: "the other user cannot add evidences to the owner's assets, nor the reader to the unshared one",
    async run(world) {
      const { shared, unshared } = await ownerAssets(world);
      for (const [user, asset] of [
        [world.other, shared],
        [world.other, unshared],
        [world.reader, unshared],
      ] as const) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .post(assetPath(asset, '/transactions'))
            .set('Authorization', as(user))
            .send({ metadata: { step: 'forged' } }),
        );
      }
    },
  },
  {
    operation: 'GET /assets/{trackID}/shares',
    name: 'who an asset is shared with is 404 to the other user and to the reader',
    async run(world) {
      const { shared } = await ownerAssets(world);
      for (const user of [world.other, world.reader]) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app).get(assetPath(shared, '/shares')).set('Authorization', as(user)),
        );
      }
    },
  },
  {
    operation: 'PUT /assets/{trackID}/shares/{userDid}',
    name: "neither the other user nor the reader can share the owner's asset (with themselves or anyone)",
    async run(world) {
      const { shared, unshared } = await ownerAssets(world);
      for (const [user, asset, did] of [
        [world.other, shared, world.other.did],
        [world.other, unshared, world.other.did],
        [world.reader, shared, world.other.did],
        [world.reader, unshared, world.reader.did],
      ] as const) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .put(assetPath(asset, `/shares/${encodeURIComponent(did)}`))
            .set('Authorization', as(user)),
        );
      }
    },
  },
  {
    operation: 'DELETE /assets/{trackID}/shares/{userDid}',
    name: "neither the other user nor the reader can withdraw a share of the owner's asset",
    async run(world) {
      const { shared } = await ownerAssets(world);
      for (const user of [world.other, world.reader]) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .delete(assetPath(shared, `/shares/${encodeURIComponent(world.reader.did)}`))
            .set('Authorization', as(user)),
        );
      }
    },
  },
  {
    operation: 'GET /evidences/{id}',
    name: "the owner's evidences cannot be verified by the other user, nor the unshared one by the reader",
    async run(world) {
      const { sharedEvidence, unsharedEvidence } = await ownerAssets(world);
      for (const [user, evidence] of [
        [world.other, sharedEvidence],
        [world.other, unsharedEvidence],
        [world.reader, unsharedEvidence],
      ] as const) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .get(`${BASE}/evidences/${evidence.hash}`)
            .set('Authorization', as(user)),
        );
      }
      const verified = await request(world.app)
        .get(`${BASE}/evidences/${sharedEvidence.hash}`)
        .set('Authorization', as(world.reader));
      expect(verified.status).toBe(200);
    },
  },
];

/** Every documented route tried by another user on the owner's assets, and by a reader. */
export function isolationSuite(shared: () => SecurityApi): void {
  describe('isolation of users', () => {
    let world: TrackWorld;
    let document: OpenApiDocument;

    beforeAll(async () => {
      const { api } = shared();
      const owner = await api.user({ credits: 1_000 });
      world = {
        api,
        app: api.app,
        request,
        basePath: BASE,
        owner,
        other: await api.user({ credits: 1_000 }),
        reader: await api.user({ credits: 1_000 }),
        digest: () => databaseDigest(api.db.knex),
        async ownerEvent(endpointId) {
          await api.createAsset(owner.token);
          return webhookEventOf(api.db.knex, endpointId, owner.id);
        },
      };
      document = (await request(api.app).get(`${BASE}/openapi.json`)).body as OpenApiDocument;
    });

    const cases: readonly IsolationCase<TrackWorld>[] = [...TRACK_CASES, ...SHARED_ISOLATION_CASES];

    isolationTests(cases, () => ({ world, document }));
  });
}
