import { freePort } from '@trustpoint/contracts';
import { insertAsset } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { assetHash, newUuidV7 } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

interface Movement {
  id: number;
  kind: string;
  amount: number;
  balanceAfter: number;
  reason: string | null;
  spentOn: {
    operation: string;
    trackID?: string;
    evidenceHash?: string;
    timestamp?: number;
  } | null;
  refundOf: number | null;
}

interface MovementPage {
  balance: number;
  movements: Movement[];
  pagination: { total: number };
}

/** The caller's whole ledger through the API, oldest first, each balance following from the last. */
async function wholeLedger(api: TrackApiFixture, token: string): Promise<Movement[]> {
  const response = await request(api.app)
    .get(`${BASE}/account/credit-movements?order=asc&limit=100`)
    .set('Authorization', `Bearer ${token}`);
  expect(response.status).toBe(200);
  const { balance, movements, pagination } = response.body.data as MovementPage;
  expect(movements).toHaveLength(pagination.total);
  let running = 0;
  for (const movement of movements) {
    running += movement.amount;
    expect(movement.balanceAfter).toBe(running);
  }
  expect(running).toBe(balance);
  return movements;
}

describe.each(testBackends())(
  "the caller's credit movements on the tracking API on %s",
  (backend) => {
    let api: TrackApiFixture;

    beforeAll(async () => {
      api = await startTrackApi(backend);
    });

    afterAll(async () => {
      await api.close();
    });

    it('when a customer creates an asset and adds evidences, one to an asset shared with them, then each is a spend of its registrant naming the asset and evidence, never of the owner', async () => {
      // Arrange
      const owner = await api.user({ credits: 5 });
      const friend = await api.user({ credits: 3 });

      // Act
      const asset = await api.createAsset(owner.token);
      const first = asset.transactions[0];
      const added = await api.addEvidence(owner.token, asset.trackID, { step: 'packed' });
      await api.share(owner.token, asset.trackID, friend.did);
      const theirs = await api.addEvidence(friend.token, asset.trackID, { step: 'received' });

      // Assert
      const ownerLedger = await wholeLedger(api, owner.token);
      expect(ownerLedger.map((row) => [row.kind, row.amount, row.spentOn])).toEqual([
        ['initial', 5, null],
        [
          'spend',
          -1,
          { operation: 'asset.create', trackID: asset.trackID, timestamp: first?.timestamp },
        ],
        [
          'spend',
          -1,
          {
            operation: 'evidence.add',
            trackID: asset.trackID,
            evidenceHash: added.hash,
            timestamp: added.timestamp,
          },
        ],
      ]);
      const friendLedger = await wholeLedger(api, friend.token);
      expect(friendLedger.map((row) => [row.kind, row.spentOn])).toEqual([
        ['initial', null],
        [
          'spend',
          {
            operation: 'evidence.add',
            trackID: asset.trackID,
            evidenceHash: theirs.hash,
            timestamp: theirs.timestamp,
          },
        ],
      ]);
    });

    it('when evidences are added at once by two users, then each ledger holds exactly its own, once', async () => {
      // Arrange
      const owner = await api.user({ credits: 30 });
      const friend = await api.user({ credits: 30 });
      const asset = await api.createAsset(owner.token);
      await api.share(owner.token, asset.trackID, friend.did);

      // Act
      const added = await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          api
            .addEvidence(index % 2 === 0 ? owner.token : friend.token, asset.trackID, { n: index })
            .then((evidence) => ({ by: index % 2 === 0 ? 'owner' : 'friend', evidence })),
        ),
      );

      // Assert
      const hashesOf = (by: string) =>
        added
          .filter((entry) => entry.by === by)
          .map((entry) => entry.evidence.hash)
          .sort();
      const spentOn = (ledger: Movement[]) =>
        ledger
          .filter((row) => row.spentOn?.operation === 'evidence.add')
          .map((row) => row.spentOn?.evidenceHash)
          .sort();
      expect(spentOn(await wholeLedger(api, owner.token))).toEqual(hashesOf('owner'));
      expect(spentOn(await wholeLedger(api, friend.token))).toEqual(hashesOf('friend'));
    });
  },
);

describe.each(testBackends())('a withdrawn evidence in the credit movements on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend, {
      anchorTimeoutMs: 1_500,
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
  });

  afterAll(async () => {
    await api.close();
  });

  it('when an evidence is withdrawn after the synchronous wait, then its spend stays listed and the refund after it names it', async () => {
    // Arrange: an asset that exists already (its creation needed the chain).
    const owner = await api.user({ credits: 1 });
    const id = newUuidV7();
    const data = { id: 'x' };
    const asset = await insertAsset(api.db.knex, {
      id,
      trackId: `did:trustpoint:trackid:${id}`,
      userId: owner.id,
      assetId: `existing-${id}`,
      data,
      assetHash: assetHash({ assetId: `existing-${id}`, data }),
      hashVersion: 1,
      networkId: '31337',
    });

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets/${asset.trackId}/transactions`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ metadata: { n: 1 } });

    // Assert
    expect(response.status).toBe(503);
    const ledger = await wholeLedger(api, owner.token);
    expect(ledger.map((row) => [row.kind, row.amount, row.balanceAfter])).toEqual([
      ['initial', 1, 1],
      ['spend', -1, 0],
      ['refund', 1, 1],
    ]);
    const [, spent, refund] = ledger;
    expect(spent?.spentOn).toMatchObject({ operation: 'evidence.add', trackID: asset.trackId });
    expect(refund).toMatchObject({
      reason: 'evidence withdrawn',
      refundOf: spent?.id,
      spentOn: spent?.spentOn,
    });
  });
});
