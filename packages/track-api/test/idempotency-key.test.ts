import { randomUUID } from 'node:crypto';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

describe.each(testBackends())('Idempotency-Key on the asset-tracking API on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const createAsset = (token: string, key: string, body: object) =>
    request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${token}`)
      .set('Idempotency-Key', key)
      .send(body);
  const addEvidence = (token: string, trackID: string, key: string, metadata: object) =>
    request(api.app)
      .post(`${BASE}/assets/${trackID}/transactions`)
      .set('Authorization', `Bearer ${token}`)
      .set('Idempotency-Key', key)
      .send({ metadata });
  const assetBody = () => ({
    assetId: `asset-${randomUUID()}`,
    data: { id: 'pallet', version: '1' },
    networkId: '31337',
  });
  /** What a crash between the commit and the stored answer leaves: the change, no answer. */
  const forgetAnswer = (userId: string, key: string) =>
    api.db.knex('idempotency_keys').where({ user_id: userId, key }).update({
      state: 'committed',
      lease_expires_at: 0,
      response_status: null,
      response_headers: null,
      response_body: null,
    });

  it('when an asset creation is retried with its key, then the first answer comes back and one credit is spent', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 5 });
    const key = randomUUID();
    const body = assetBody();
    const first = await createAsset(token, key, body);

    // Act
    const retry = await createAsset(token, key, body);
    const other = await createAsset(token, key, assetBody());

    // Assert
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(other.status).toBe(422);
    expect(await findCreditBalance(api.db.knex, id)).toBe(4);
  });

  it('when the process died after the asset committed and before its answer was stored, then a retry answers with that asset', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 5 });
    const key = randomUUID();
    const body = assetBody();
    const first = await createAsset(token, key, body);
    await forgetAnswer(id, key);

    // Act
    const retry = await createAsset(token, key, body);

    // Assert
    expect(retry.status).toBe(201);
    expect(retry.body.data.trackID).toBe(first.body.data.trackID);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await findCreditBalance(api.db.knex, id)).toBe(4);
    // The recovered answer is the one replayed from now on.
    const again = await createAsset(token, key, body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
  });

  it('when 10 identical evidences with one key arrive at once, then one evidence is registered, and a recovered one comes back as it was', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 20 });
    const asset = await api.createAsset(token);
    const key = randomUUID();
    const metadata = { step: randomUUID() };

    // Act
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => addEvidence(token, asset.trackID, key, metadata)),
    );
    await forgetAnswer(id, key);
    const recovered = await addEvidence(token, asset.trackID, key, metadata);

    // Assert
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length + answers.filter((answer) => answer.status === 409).length).toBe(10);
    expect(new Set(created.map((answer) => answer.body.data.timestamp as number)).size).toBe(1);
    const evidences = await api.db.knex('evidences').where({ user_owner: `did:user:${id}` });
    expect(evidences).toHaveLength(2);
    expect(await findCreditBalance(api.db.knex, id)).toBe(18);
    expect(recovered.status).toBe(201);
    expect(recovered.body.data).toEqual(created[0]?.body.data);
  });
});
