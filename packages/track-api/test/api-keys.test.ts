import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

interface CreatedKey {
  data: { id: string; key: string };
}

describe.each(testBackends())('API keys and the token endpoint of /track/v2 on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  it('when a user adds evidences with an API key and with a token exchanged for it, then both work until the key is revoked', async () => {
    // Arrange
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);
    const created = await request(api.app)
      .post('/track/v2/api-keys')
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ name: 'sensor gateway', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    const { id, key } = (created.body as CreatedKey).data;
    const exchanged = await request(api.app)
      .post('/track/v2/oauth/token')
      .auth(id, key)
      .type('form')
      .send({ grant_type: 'client_credentials' });
    const accessToken = (exchanged.body as { access_token: string }).access_token;

    // Act
    const withKey = await api.addEvidence(key, asset.trackID, { reading: 1 });
    const withToken = await api.addEvidence(accessToken, asset.trackID, { reading: 2 });
    await request(api.app)
      .delete(`/track/v2/api-keys/${id}`)
      .set('Authorization', `Bearer ${owner.token}`)
      .expect(200);
    const after = await request(api.app)
      .get('/track/v2/assets')
      .set('Authorization', `Bearer ${accessToken}`);

    // Assert
    expect(created.status).toBe(201);
    expect(withKey.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(withToken.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({
      statusCode: 401,
      type: 'Authentication Error',
      message: 'Token is invalid',
    });
  });
});
