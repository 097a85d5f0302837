import { randomUUID } from 'node:crypto';
import { insertAsset } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  assetHash,
  assetHashV2,
  decodeGetEvidenceResponse,
  getEvidenceRequest,
  newUuidV7,
  type Asset,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import {
  BASE,
  rawEthCall,
  startTrackApi,
  type TrackApiFixture,
} from './support/track-api-fixture.js';

// An asset holds one evidence per second: each takes the next free second of its assetHash's
// clock. Issue #24: with the version 1 assetHash ({assetId, data}) two users' assets with the same
// id and data shared that clock, and one user's evidences pushed the other's seconds forward.
// The clock stands still here, so any second taken by someone else would show.
const NOW_MS = Math.floor(Date.now() / 1_000) * 1_000;
const NOW_SECONDS = NOW_MS / 1_000;

describe.each(testBackends())('one asset, one clock on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend, { now: () => NOW_MS, maxEvidenceAheadSeconds: 60 });
  });
  afterAll(async () => {
    await api.close();
  });

  /** What `getEvidence(assetHash, timestamp)` returns to an outside client. */
  const onChain = async (assetHashHex: string, timestamp: number) =>
    decodeGetEvidenceResponse(
      await rawEthCall(
        api.chain.url,
        getEvidenceRequest({
          smartContract: api.network.evidenceRepository,
          assetHash: assetHashHex,
          timestampSeconds: timestamp,
        }),
      ),
    );

  it("when two users have assets with the same id and data and one adds 50 evidences, then the other's next evidence keeps its own clock", async () => {
    // Arrange: A and B each create an asset with the same assetId and data.
    const alice = await api.user({ credits: 10 });
    const bob = await api.user({ credits: 60 });
    const body = { assetId: `pallet-${randomUUID()}`, data: { id: 'P-42', version: '1' } };
    const mine = await api.createAsset(alice.token, body);
    const theirs = await api.createAsset(bob.token, body);

    // Act: B adds 50 evidences to their asset, then A adds one to theirs.
    const bobs = [];
    for (let i = 0; i < 50; i += 1) {
      bobs.push(await api.addEvidence(bob.token, theirs.trackID, { i }));
    }
    const next = await api.addEvidence(alice.token, mine.trackID, { step: 'shipped' });

    // Assert: each asset's own hash, version 2, covering its trackID and owner.
    expect(mine).toMatchObject({ hashVersion: 2, owner: alice.did });
    expect(theirs).toMatchObject({ hashVersion: 2, owner: bob.did });
    expect(mine.assetHash).toBe(assetHashV2({ trackID: mine.trackID, owner: alice.did, ...body }));
    expect(theirs.assetHash).toBe(
      assetHashV2({ trackID: theirs.trackID, owner: bob.did, ...body }),
    );
    expect(mine.assetHash).not.toBe(theirs.assetHash);
    // Both first evidences took the current second; B's 50 are B's seconds only.
    expect(mine.transactions[0]?.timestamp).toBe(NOW_SECONDS);
    expect(theirs.transactions[0]?.timestamp).toBe(NOW_SECONDS);
    expect(bobs.map((evidence) => evidence.timestamp)).toEqual(
      Array.from({ length: 50 }, (_, i) => NOW_SECONDS + 1 + i),
    );
    expect(next.timestamp).toBe(NOW_SECONDS + 1);
    expect(await onChain(mine.assetHash, next.timestamp)).toEqual({
      found: true,
      hash: next.hash,
    });
    expect(await onChain(theirs.assetHash, next.timestamp)).toEqual({
      found: true,
      hash: bobs[0]?.hash,
    });
  });

  it('when assets were made under version 1, then they keep their hash, share its clock and their evidences are on chain under it', async () => {
    // Arrange: two users' assets stored before version 2, with the same assetId and data.
    const alice = await api.user({ credits: 10 });
    const bob = await api.user({ credits: 10 });
    const assetId = `legacy-${randomUUID()}`;
    const data = { id: 'L-1' };
    const legacyHash = assetHash({ assetId, data });
    const trackIds = await Promise.all(
      [alice, bob].map(async (user) => {
        const id = newUuidV7();
        const trackId = `did:trustpoint:trackid:${id}`;
        await insertAsset(api.db.knex, {
          id,
          trackId,
          userId: user.id,
          assetId,
          data,
          assetHash: legacyHash,
          hashVersion: 1,
          networkId: '31337',
        });
        return trackId;
      }),
    );
    const [aliceTrackId, bobTrackId] = trackIds as [string, string];

    // Act
    const first = await api.addEvidence(bob.token, bobTrackId, { i: 1 });
    const second = await api.addEvidence(alice.token, aliceTrackId, { i: 2 });
    const shown = await request(api.app)
      .get(`${BASE}/assets/${aliceTrackId}`)
      .set('Authorization', `Bearer ${alice.token}`);

    // Assert: a version 1 hash is shared, so its seconds must be (one on-chain key each).
    expect(shown.status).toBe(200);
    const asset = shown.body.data as Asset;
    expect(asset).toMatchObject({ hashVersion: 1, owner: alice.did, assetHash: legacyHash });
    expect(second.timestamp).toBeGreaterThan(first.timestamp);
    expect(await onChain(legacyHash, first.timestamp)).toEqual({ found: true, hash: first.hash });
    expect(await onChain(legacyHash, second.timestamp)).toEqual({
      found: true,
      hash: second.hash,
    });
  });
});
