import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  assetHashV2,
  assetSchema,
  decodeGetEvidenceResponse,
  evidenceHash,
  getEvidenceRequest,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import {
  BASE,
  rawEthCall,
  startTrackApi,
  tokenFor,
  type TrackApiFixture,
} from './support/track-api-fixture.js';

describe.each(testBackends())('POST /assets on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const post = (token: string | undefined, body: unknown) => {
    const call = request(api.app)
      .post(`${BASE}/assets`)
      .send(body as object);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  const assetCount = async (userId: string) =>
    (
      await api.db
        .knex('assets')
        .where({ user_id: userId })
        .count<{ count: number }[]>('* as count')
    )[0]?.count;

  it('when an asset is created, then 201 returns it with its first evidence anchored, and one raw eth_call verifies it', async () => {
    // Arrange
    const owner = await api.user({ credits: 3 });
    const data = { id: 'pallet-7', version: '2', origin: { city: 'Madrid' } };

    // Act
    const response = await post(owner.token, { assetId: 'pallet-7', data, networkId: '31337' });

    // Assert
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ statusCode: 201, message: 'Asset created successfully' });
    const asset = assetSchema.parse(response.body.data);
    expect(asset).toMatchObject({
      assetId: 'pallet-7',
      data,
      networkId: 31337,
      hashVersion: 2,
      owner: owner.did,
    });
    expect(asset.trackID).toMatch(/^did:trustpoint:trackid:/);
    expect(asset.assetHash).toBe(
      assetHashV2({ trackID: asset.trackID, owner: owner.did, assetId: 'pallet-7', data }),
    );
    expect(asset.transactions).toHaveLength(1);
    const [first] = asset.transactions;
    expect(first).toMatchObject({
      metadata: {},
      userOwner: owner.did,
      smartContract: api.network.evidenceRepository,
    });
    expect(first?.hash).toBe(
      evidenceHash({ metadata: {}, timestamp: first?.timestamp ?? 0, userOwner: owner.did }),
    );
    expect(Math.abs((first?.timestamp ?? 0) - Date.now() / 1_000)).toBeLessThan(60);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    const reply = await rawEthCall(
      api.chain.url,
      getEvidenceRequest({
        smartContract: first?.smartContract ?? '',
        assetHash: asset.assetHash,
        timestampSeconds: first?.timestamp ?? 0,
      }),
    );
    expect(decodeGetEvidenceResponse(reply)).toEqual({ found: true, hash: first?.hash });
  });

  it('when an owner repeats an assetId, then 409 and nothing is written or spent; another user may use it', async () => {
    // Arrange
    const owner = await api.user({ credits: 5 });
    const other = await api.user();
    const body = { assetId: 'same-id', data: { id: '1' }, networkId: '31337' };
    const created = await post(owner.token, body);

    // Act
    const repeated = await post(owner.token, { ...body, data: { id: '2' } });
    const othersCopy = await post(other.token, body);

    // Assert
    expect(created.status).toBe(201);
    expect(repeated.status).toBe(409);
    expect(repeated.body).toEqual({
      statusCode: 409,
      type: 'Existing certificate error',
      message: 'The provided assetId is already registered, please try again with a different one',
    });
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(4);
    expect(await assetCount(owner.id)).toBe(1);
    expect(othersCopy.status).toBe(201);
    // Version 2: the other user's asset has keys of its own.
    expect(othersCopy.body.data.assetHash).not.toBe(created.body.data.assetHash);
  });

  it('when a user without credits repeats an assetId, then 409, not 429: credits would not help', async () => {
    // Arrange
    const owner = await api.user({ credits: 1 });
    const body = { assetId: 'last-credit', data: {}, networkId: '31337' };
    expect((await post(owner.token, body)).status).toBe(201);

    // Act
    const repeated = await post(owner.token, body);

    // Assert
    expect(repeated.status).toBe(409);
    expect(repeated.body.type).toBe('Existing certificate error');
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(0);
    expect(await assetCount(owner.id)).toBe(1);
  });

  it('when credits run out, then 429 and no asset is written', async () => {
    // Arrange
    const owner = await api.user({ credits: 1 });
    await api.createAsset(owner.token);

    // Act
    const response = await post(owner.token, {
      assetId: 'one-too-many',
      data: {},
      networkId: '31337',
    });

    // Assert
    expect(response.status).toBe(429);
    expect(response.body.type).toBe('Out of Credits Error');
    expect(await assetCount(owner.id)).toBe(1);
  });

  it('when the network is not in the plan, then 403; when it is unknown, then 400 on body.networkId; nothing is spent', async () => {
    // Arrange
    const owner = await api.user({ credits: 2, networks: [] });
    const body = { assetId: 'x', data: {} };

    // Act
    const outside = await post(owner.token, { ...body, networkId: '31337' });
    const unknown = await post(owner.token, { ...body, networkId: 80001 });

    // Assert
    expect(outside.status).toBe(403);
    expect(outside.body.message).toMatch(/^Provider not available in your plan/);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      { field: 'body.networkId', error: 'Unknown or unconfigured network' },
    ]);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
  });

  it('when the body is malformed, then 400 lists each problem and nothing is written', async () => {
    // Arrange
    const owner = await api.user({ credits: 2 });

    // Act
    const response = await post(owner.token, { assetId: '', data: 'text', extra: true });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('Validation Error');
    expect(response.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ['body', 'body.assetId', 'body.data', 'body.networkId'].sort(),
    );
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    expect(await assetCount(owner.id)).toBe(0);
  });

  it('when the data holds integers beyond 2^53 and the network is unknown, then one 400 names each and nothing is written', async () => {
    // Arrange: JSON.parse would round both, and the rounded values would be hashed.
    const owner = await api.user({ credits: 2 });

    // Act
    const response = await request(api.app)
      .post(`${BASE}/assets`)
      .set('Authorization', `Bearer ${owner.token}`)
      .set('Content-Type', 'application/json')
      .send(
        '{"assetId":"big","data":{"serial":123456789012345678901234567890,"parts":[9007199254740993]},"networkId":80001}',
      );

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        field: 'body.data.serial',
        error:
          'Integers beyond 2^53 - 1 lose digits in JSON (I-JSON, RFC 7493): send it as a string',
      },
      {
        field: 'body.data.parts.0',
        error:
          'Integers beyond 2^53 - 1 lose digits in JSON (I-JSON, RFC 7493): send it as a string',
      },
      { field: 'body.networkId', error: 'Unknown or unconfigured network' },
    ]);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    expect(await assetCount(owner.id)).toBe(0);
  });

  it('when no token or a bad token is sent, then 401 with the matching message', async () => {
    // Arrange
    const { id } = await api.user();
    const body = { assetId: 'x', data: {}, networkId: '31337' };

    // Act
    const responses = await Promise.all([
      post(undefined, body),
      post(await tokenFor(id, 'another-secret-another-secret-32b'), body),
      post(await tokenFor(id, undefined, -10), body),
      post(await tokenFor('nobody'), body),
    ]);

    // Assert
    expect(responses.map((r) => (r.body as { message: string }).message)).toEqual([
      'Token is not provided',
      'Token is invalid',
      'Token is expired',
      'User credentials are wrong',
    ]);
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([401]));
    expect(await assetCount(id)).toBe(0);
  });
});
