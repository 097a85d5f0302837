import { findCreditBalance, lockCreditBalances, unshareAsset } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  decodeGetEvidenceResponse,
  evidenceHash,
  getEvidenceRequest,
  transactionSchema,
  type Asset,
  type Transaction,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import {
  BASE,
  rawEthCall,
  startTrackApi,
  type TrackApiFixture,
} from './support/track-api-fixture.js';

const EVIDENCE_NOT_FOUND = '0x09cea733';

describe.each(testBackends())('POST /assets/{trackID}/transactions on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const post = (token: string, trackID: string, body: unknown) =>
    request(api.app)
      .post(`${BASE}/assets/${trackID}/transactions`)
      .set('Authorization', `Bearer ${token}`)
      .send(body as object);

  /** What `getEvidence(assetHash, timestamp)` returns to an outside client. */
  const onChain = async (asset: Asset, timestamp: number) =>
    decodeGetEvidenceResponse(
      await rawEthCall(
        api.chain.url,
        getEvidenceRequest({
          smartContract: api.network.evidenceRepository,
          assetHash: asset.assetHash,
          timestampSeconds: timestamp,
        }),
      ),
    );

  it('when an evidence with nested metadata is added, then 201 returns it anchored and one raw eth_call returns its hash', async () => {
    // Arrange
    const owner = await api.user({ credits: 5 });
    const asset = await api.createAsset(owner.token);
    const metadata = { step: 'shipped', carrier: { name: 'ACME', legs: [1, 2] }, ok: true };

    // Act
    const response = await post(owner.token, asset.trackID, { metadata });

    // Assert
    expect(response.status).toBe(201);
    expect(response.body.message).toBe('Evidence registered successfully');
    const evidence = transactionSchema.parse(response.body.data);
    expect(evidence).toMatchObject({
      metadata,
      userOwner: owner.did,
      smartContract: api.network.evidenceRepository,
    });
    expect(evidence.hash).toBe(
      evidenceHash({ metadata, timestamp: evidence.timestamp, userOwner: owner.did }),
    );
    const reply = await rawEthCall(
      api.chain.url,
      getEvidenceRequest({
        smartContract: evidence.smartContract ?? '',
        assetHash: asset.assetHash,
        timestampSeconds: evidence.timestamp,
      }),
    );
    expect(reply).toMatchObject({ result: expect.stringMatching(/^0x/) as unknown });
    expect(decodeGetEvidenceResponse(reply)).toEqual({ found: true, hash: evidence.hash });
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(3);
  });

  it('when an outside client asks for a key nobody registered, then the node reverts with exactly 0x09cea733', async () => {
    // Arrange
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);
    const [first] = asset.transactions;

    // Act
    const reply = (await rawEthCall(
      api.chain.url,
      getEvidenceRequest({
        smartContract: api.network.evidenceRepository,
        assetHash: asset.assetHash,
        timestampSeconds: (first?.timestamp ?? 0) + 10_000,
      }),
    )) as { result?: unknown; error?: { data?: { data?: unknown } } };

    // Assert
    expect(reply.result).toBeUndefined();
    expect(reply.error?.data?.data).toBe(EVIDENCE_NOT_FOUND);
    expect(decodeGetEvidenceResponse(reply)).toEqual({ found: false });
  });

  it('when many evidences are added to one asset at once, then each gets its own second and all are anchored', async () => {
    // Arrange
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);
    const count = 16;

    // Act
    const responses = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        post(owner.token, asset.trackID, { metadata: { i } }),
      ),
    );

    // Assert
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: count }, () => 201));
    const evidences = responses.map((r) => r.body.data as Transaction);
    const stamps = [asset.transactions[0]?.timestamp, ...evidences.map((e) => e.timestamp)];
    expect(new Set(stamps).size).toBe(count + 1);
    const reads = await Promise.all(evidences.map((e) => onChain(asset, e.timestamp)));
    expect(reads).toEqual(evidences.map((e) => ({ found: true, hash: e.hash })));
  });

  it('when users with credit enough add evidences at once, then their groups are each one statement that locks the balances itself, with no transaction around it', async () => {
    // Arrange
    const owner = await api.user({ credits: 20 });
    const asset = await api.createAsset(owner.token);
    // knex names the transaction a statement runs in, if any.
    const statements: { sql: string; __knexTxId?: string }[] = [];
    const listen = (query: { sql: string; __knexTxId?: string }) => {
      statements.push(query);
    };
    api.db.knex.on('query', listen);

    // Act
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(owner.token, asset.trackID, { metadata: { i } })),
    );
    api.db.knex.off('query', listen);

    // Assert
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 201));
    const writes = statements.filter(({ sql }) => sql.includes('insert into evidences'));
    expect(writes.length).toBeGreaterThan(0);
    for (const { sql, __knexTxId } of writes) {
      expect(sql).toContain('balances_locked');
      expect(__knexTxId).toBeUndefined();
    }
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(20 - 1 - 8);
  });

  it('when a user has no credit balance at all, then adding an evidence is 429 and nothing is written', async () => {
    // Arrange: every account gets a balance when it is made; a lost one must not mean free.
    const owner = await api.user({ credits: 5 });
    const asset = await api.createAsset(owner.token);
    await api.db.knex('credits').where('user_id', owner.id).delete();
    const evidences = async () => {
      const counted = await api.db
        .knex('evidences')
        .where('user_owner', `did:user:${owner.id}`)
        .count<{ count: string | number }[]>('* as count');
      return Number(counted[0]?.count);
    };
    // The asset's own first evidence.
    expect(await evidences()).toBe(1);

    // Act
    const response = await post(owner.token, asset.trackID, { metadata: { free: true } });

    // Assert
    expect(response.status).toBe(429);
    expect(await evidences()).toBe(1);
  });

  it('when two users with assets of the same id and data add evidences at once, then each asset is on chain under its own assetHash', async () => {
    // Arrange
    const alice = await api.user();
    const bob = await api.user();
    const body = { assetId: 'shared-design', data: { id: 'same', version: '1' } };
    const mine = await api.createAsset(alice.token, body);
    const theirs = await api.createAsset(bob.token, body);
    const perUser = 8;

    // Act
    const responses = await Promise.all(
      Array.from({ length: perUser }, (_, i) => [
        post(alice.token, mine.trackID, { metadata: { i } }),
        post(bob.token, theirs.trackID, { metadata: { i } }),
      ]).flat(),
    );

    // Assert: version 2 hashes (trackID and owner covered) keep the two key spaces apart.
    expect(mine.assetHash).not.toBe(theirs.assetHash);
    expect(responses.every((r) => r.status === 201)).toBe(true);
    const evidences = responses.map((r) => r.body.data as Transaction);
    const ofAsset = (asset: Asset, owner: string) => [
      asset.transactions[0]?.timestamp,
      ...evidences.filter((e) => e.userOwner === owner).map((e) => e.timestamp),
    ];
    expect(new Set(ofAsset(mine, alice.did)).size).toBe(perUser + 1);
    expect(new Set(ofAsset(theirs, bob.did)).size).toBe(perUser + 1);
    const reads = await Promise.all(
      evidences.map((e) => onChain(e.userOwner === alice.did ? mine : theirs, e.timestamp)),
    );
    expect(reads).toEqual(evidences.map((e) => ({ found: true, hash: e.hash })));
  });

  it('when a user the asset is shared with adds an evidence, then it is theirs and spends their credit; after unsharing, 404', async () => {
    // Arrange
    const owner = await api.user({ credits: 5 });
    const friend = await api.user({ credits: 5 });
    const asset = await api.createAsset(owner.token);
    await api.share(owner.token, asset.trackID, friend.did);

    // Act
    const added = await post(friend.token, asset.trackID, { metadata: { by: 'friend' } });
    await request(api.app)
      .delete(`${BASE}/assets/${asset.trackID}/shares/${friend.did}`)
      .set('Authorization', `Bearer ${owner.token}`);
    const afterUnshare = await post(friend.token, asset.trackID, { metadata: { by: 'friend' } });

    // Assert
    expect(added.status).toBe(201);
    expect(added.body.data.userOwner).toBe(friend.did);
    expect(await findCreditBalance(api.db.knex, friend.id)).toBe(4);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(4);
    expect(afterUnshare.status).toBe(404);
    expect(await findCreditBalance(api.db.knex, friend.id)).toBe(4);
    // Each evidence names the user whose credit it cost: the one refunded if it ends failed.
    const payers = await api.db
      .knex('evidences')
      .join('anchor_records', 'anchor_records.id', 'evidences.anchor_record_id')
      .join('assets', 'assets.id', 'evidences.asset')
      .where('assets.track_id', asset.trackID)
      .orderBy('evidences.timestamp')
      .pluck('anchor_records.paid_by');
    expect(payers).toEqual([owner.id, friend.id]);
  });

  // PostgreSQL alone: the evidence's statement must wait (for the friend's balance) while the
  // share is withdrawn from another connection, which the embedded engine runs one at a time.
  it.skipIf(backend === 'pglite')(
    'when the share is withdrawn after the asset was read and before the evidence is written, then 404 and nothing is written or spent',
    async () => {
      // Arrange
      const owner = await api.user({ credits: 5 });
      const friend = await api.user({ credits: 5 });
      const asset = await api.createAsset(owner.token);
      await api.share(owner.token, asset.trackID, friend.did);
      const row = await api.db
        .knex('assets')
        .where('track_id', asset.trackID)
        .first<{ id: string }>('id');

      // Act: the friend's balance held, so the evidence statement waits before writing; the
      // share is withdrawn meanwhile.
      let added: Awaited<ReturnType<typeof post>> | undefined;
      await api.db.knex.transaction(async (trx) => {
        await lockCreditBalances(trx, [friend.id]);
        const sent = post(friend.token, asset.trackID, { metadata: { by: 'friend' } });
        void sent.then((response) => (added = response));
        await new Promise((resolve) => setTimeout(resolve, 300));
        await unshareAsset(api.db.knex, row.id, friend.id);
      });
      while (added === undefined) await new Promise((resolve) => setTimeout(resolve, 20));

      // Assert
      expect(added.status).toBe(404);
      expect(await findCreditBalance(api.db.knex, friend.id)).toBe(5);
      const evidences = await api.db
        .knex('evidences')
        .join('assets', 'assets.id', 'evidences.asset')
        .where('assets.track_id', asset.trackID)
        .count<{ count: string | number }[]>('* as count');
      expect(Number(evidences[0]?.count)).toBe(1);
    },
  );

  it("when a stranger adds to someone's asset or to an unknown one, then 404 the same way and nothing is spent", async () => {
    // Arrange
    const owner = await api.user();
    const stranger = await api.user({ credits: 3 });
    const asset = await api.createAsset(owner.token);
    const unknown = asset.trackID.replace(/[0-9a-f]{4}$/, '0000');

    // Act
    const others = await post(stranger.token, asset.trackID, { metadata: {} });
    const missing = await post(stranger.token, unknown, { metadata: {} });

    // Assert
    expect(others.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(others.body).toEqual(missing.body);
    expect(await findCreditBalance(api.db.knex, stranger.id)).toBe(3);
  });

  it('when the metadata holds an integer beyond 2^53, then 400 names its path and nothing is written', async () => {
    // Arrange
    const owner = await api.user({ credits: 3 });
    const asset = await api.createAsset(owner.token);
    const evidences = () =>
      api.db.knex('evidences').count<{ count: number }[]>('* as count').first();
    const before = await evidences();

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets/${asset.trackID}/transactions`)
      .set('Authorization', `Bearer ${owner.token}`)
      .set('Content-Type', 'application/json')
      .send('{"metadata":{"reading":{"id":123456789012345678901234567890},"ok":9007199254740991}}');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        field: 'body.metadata.reading.id',
        error:
          'Integers beyond 2^53 - 1 lose digits in JSON (I-JSON, RFC 7493): send it as a string',
      },
    ]);
    expect(await evidences()).toEqual(before);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
  });

  it('when the trackID and the body are both malformed, then one 400 lists the problems of both', async () => {
    // Arrange
    const owner = await api.user();

    // Act
    const response = await post(owner.token, 'not-a-track-id', { metadata: 'text' });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'path.trackID',
      'body.metadata',
    ]);
  });

  it('when credits run out, the network left the plan, or the body is malformed, then 429, 403, 400 and nothing is written', async () => {
    // Arrange
    const owner = await api.user({ credits: 1 });
    const asset = await api.createAsset(owner.token);
    const friend = await api.user({ credits: 2, networks: [] });
    await api.share(owner.token, asset.trackID, friend.did);
    const evidences = () =>
      api.db.knex('evidences').count<{ count: number }[]>('* as count').first();
    const before = await evidences();

    // Act
    const noCredit = await post(owner.token, asset.trackID, { metadata: { n: 1 } });
    const outsidePlan = await post(friend.token, asset.trackID, { metadata: { n: 1 } });
    const malformed = await post(owner.token, asset.trackID, { metadata: [1], extra: 1 });
    const badTrackId = await post(owner.token, 'not-a-track-id', { metadata: {} });

    // Assert
    expect(noCredit.status).toBe(429);
    expect(outsidePlan.status).toBe(403);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'body',
      'body.metadata',
    ]);
    expect(badTrackId.status).toBe(400);
    expect(badTrackId.body.errors[0].field).toBe('path.trackID');
    expect(await evidences()).toEqual(before);
    expect(await findCreditBalance(api.db.knex, friend.id)).toBe(2);
  });
});
