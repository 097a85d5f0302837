import { randomUUID } from 'node:crypto';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { listAuditEntries, updateUser, type AuditEntry } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const adminRequest = checkedRequest(ADMIN_API_BASE_PATH);

interface Key {
  id: string;
  key: string;
  scopes: string[];
  parentKeyId: string | null;
  revokedAt: string | null;
}

describe.each(testBackends())('changing the scopes of API keys on %s', (backend) => {
  let api: CertApiFixture;
  let admin: { id: string; token: string };

  beforeAll(async () => {
    api = await startCertApi(backend);
    admin = await api.user();
    await updateUser(api.db.knex, admin.id, { role: 'admin' });
  });

  afterAll(async () => {
    await api.close();
  });

  const bearer = (token: string) => `Bearer ${token}`;
  const makeKey = async (token: string, body: object = {}): Promise<Key> => {
    const response = await request(api.app)
      .post('/cert/v2/api-keys')
      .set('Authorization', bearer(token))
      .send({ name: 'k', ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data as Key;
  };
  const exchange = async (key: Key, scope?: string): Promise<string> => {
    const response = await request(api.app)
      .post('/cert/v2/oauth/token')
      .auth(key.id, key.key)
      .type('form')
      .send({ grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) });
    expect(response.status).toBe(200);
    return (response.body as { access_token: string }).access_token;
  };
  const narrow = (token: string, keyId: string, body: unknown, idempotencyKey?: string) => {
    const call = request(api.app)
      .patch(`/cert/v2/api-keys/${keyId}`)
      .set('Authorization', bearer(token));
    if (idempotencyKey !== undefined) void call.set('Idempotency-Key', idempotencyKey);
    return call.send(body as object);
  };
  const setScopes = (userId: string, keyId: string, scopes: unknown, idempotencyKey?: string) => {
    const call = adminRequest(api.app)
      .patch(`/admin/v1/users/${encodeURIComponent(userId)}/api-keys/${keyId}`)
      .set('Authorization', bearer(admin.token));
    if (idempotencyKey !== undefined) void call.set('Idempotency-Key', idempotencyKey);
    return call.send({ scopes });
  };
  const certify = (token: string) =>
    request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337')
      .set('Authorization', bearer(token))
      .send({ name: 'n', description: '', content: { n: randomUUID() } });
  const listCertificates = (token: string) =>
    request(api.app).get('/cert/v2/certificates').set('Authorization', bearer(token));
  const keysOf = async (userId: string): Promise<Key[]> => {
    const response = await adminRequest(api.app)
      .get(`/admin/v1/users/${encodeURIComponent(userId)}/api-keys`)
      .set('Authorization', bearer(admin.token));
    expect(response.status).toBe(200);
    return (response.body.data as { apiKeys: Key[] }).apiKeys;
  };
  const scopeChanges = async (keyId: string): Promise<AuditEntry[]> =>
    (
      await listAuditEntries(api.db.knex, {
        target: `api-key:${keyId}`,
        action: 'api-key.scopes',
        offset: 0,
        limit: 100,
      })
    ).entries;

  it('when a customer narrows a key, then from the next request the key and a token already exchanged for it can no longer certify, still read, and the change is audited', async () => {
    // Arrange
    const owner = await api.user();
    const key = await makeKey(owner.token, { scopes: ['read', 'certify', 'keys'] });
    const token = await exchange(key);
    expect((await certify(token)).status).toBe(201);

    // Act
    const changed = await narrow(owner.token, key.id, { scopes: ['keys', 'read'] });

    // Assert
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: key.id, scopes: ['read', 'keys'] });
    for (const credential of [key.key, token]) {
      const refused = await certify(credential);
      expect(refused.status).toBe(403);
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'scope' })]);
      expect((await listCertificates(credential)).status).toBe(200);
    }
    expect(await scopeChanges(key.id)).toEqual([
      expect.objectContaining({
        actorId: owner.id,
        changes: { userId: owner.id, from: ['read', 'certify', 'keys'], to: ['read', 'keys'] },
      }),
    ]);
  });

  it('when a customer asks for a scope the key lacks, then 403 naming it, and nothing changes', async () => {
    // Arrange
    const owner = await api.user();
    const key = await makeKey(owner.token, { scopes: ['read', 'keys'] });

    // Act: with the user's own token (every scope), and with the key itself.
    const byToken = await narrow(owner.token, key.id, { scopes: ['read', 'certify'] });
    const byKey = await narrow(key.key, key.id, { scopes: ['read', 'keys', 'admin'] });

    // Assert
    for (const [response, lacking] of [
      [byToken, 'certify'],
      [byKey, 'admin'],
    ] as const) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({
        statusCode: 403,
        type: 'Forbidden Error',
        errors: [{ field: 'body.scopes', error: expect.stringContaining(lacking) as string }],
      });
    }
    expect((await keysOf(owner.id)).map((listed) => listed.scopes)).toEqual([['read', 'keys']]);
    expect(await scopeChanges(key.id)).toEqual([]);
  });

  it('when the scopes asked for are not scopes, then 400 with the spec error body naming the field, and nothing changes', async () => {
    // Arrange
    const owner = await api.user();
    const key = await makeKey(owner.token, { scopes: ['read', 'certify'] });
    const bodies: unknown[] = [
      { scopes: ['everything'] },
      { scopes: [] },
      { scopes: 'read' },
      { scopes: ['read', 7] },
      {},
      { scopes: ['read'], name: 'renamed' },
    ];

    // Act
    const customer = await Promise.all(bodies.map((body) => narrow(owner.token, key.id, body)));
    const administrator = await setScopes(owner.id, key.id, ['read', 'root']);

    // Assert
    for (const response of [...customer, administrator]) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        statusCode: 400,
        type: 'Validation Error',
        message: 'Request parameters are wrong, check requirements',
        errors: [expect.objectContaining({ field: expect.stringMatching(/^body/) as string })],
      });
    }
    expect((await keysOf(owner.id))[0]?.scopes).toEqual(['read', 'certify']);
    expect(await scopeChanges(key.id)).toEqual([]);
  });

  it('when a key is narrowed, then the keys made with it are narrowed with it at every depth, one left with nothing is revoked with its own, and their tokens follow', async () => {
    // Arrange
    const owner = await api.user();
    const parent = await makeKey(owner.token, { scopes: ['read', 'certify', 'track', 'keys'] });
    const child = await makeKey(parent.key, { scopes: ['read', 'certify', 'keys'] });
    const grandchild = await makeKey(child.key, { scopes: ['certify', 'keys'] });
    const tracker = await makeKey(parent.key, { scopes: ['track', 'keys'] });
    const trackersChild = await makeKey(tracker.key, { scopes: ['track'] });
    const childToken = await exchange(child);

    // Act
    const changed = await narrow(owner.token, parent.id, { scopes: ['read', 'certify'] });

    // Assert
    expect(changed.status).toBe(200);
    const keys = new Map((await keysOf(owner.id)).map((listed) => [listed.id, listed]));
    expect(keys.get(parent.id)?.scopes).toEqual(['read', 'certify']);
    expect(keys.get(child.id)?.scopes).toEqual(['read', 'certify']);
    expect(keys.get(grandchild.id)?.scopes).toEqual(['certify']);
    expect(keys.get(tracker.id)?.revokedAt).not.toBeNull();
    expect(keys.get(trackersChild.id)?.revokedAt).not.toBeNull();
    const childListsKeys = await request(api.app)
      .get('/cert/v2/api-keys')
      .set('Authorization', bearer(childToken));
    expect(childListsKeys.status).toBe(403);
    expect((await certify(childToken)).status).toBe(201);
    expect((await listCertificates(grandchild.key)).status).toBe(403);
    expect((await listCertificates(tracker.key)).status).toBe(401);
    expect((await scopeChanges(parent.id))[0]?.changes).toEqual({
      userId: owner.id,
      from: ['read', 'certify', 'track', 'keys'],
      to: ['read', 'certify'],
      narrowed: { [child.id]: ['read', 'certify'], [grandchild.id]: ['certify'] },
      revoked: [tracker.id, trackersChild.id].sort(),
    });
  });

  it('when an administrator widens a key, then it may do more from the next request, a token issued before keeps its scope, and a key made with another key never gets more than it (400)', async () => {
    // Arrange
    const owner = await api.user();
    const key = await makeKey(owner.token, { scopes: ['read', 'keys'] });
    const before = await exchange(key);
    const child = await makeKey(key.key, { scopes: ['read'] });

    // Act
    const widened = await setScopes(owner.id, key.id, ['read', 'certify', 'keys']);
    const after = await exchange(key);
    const beyondParent = await setScopes(owner.id, child.id, ['read', 'webhooks']);
    const childWidened = await setScopes(owner.id, child.id, ['read', 'certify']);

    // Assert
    expect(widened.status).toBe(200);
    expect(widened.body.data.scopes).toEqual(['read', 'certify', 'keys']);
    expect((await certify(key.key)).status).toBe(201);
    expect((await certify(after)).status).toBe(201);
    expect((await certify(before)).status).toBe(403);
    expect(beyondParent.status).toBe(400);
    expect(beyondParent.body.errors).toEqual([
      { field: 'body.scopes', error: expect.stringContaining('webhooks') as string },
    ]);
    expect(childWidened.status).toBe(200);
    expect((await scopeChanges(key.id))[0]).toMatchObject({
      actorId: admin.id,
      changes: { userId: owner.id, from: ['read', 'keys'], to: ['read', 'certify', 'keys'] },
    });
  });

  it('when a change is sent again with its Idempotency-Key, then the first answer is replayed and nothing more changes; the key with another body is a 422', async () => {
    // Arrange
    const owner = await api.user();
    const key = await makeKey(owner.token, { scopes: ['read', 'certify', 'keys'] });
    const other = await makeKey(owner.token, { scopes: ['read', 'keys'] });
    const idempotencyKey = randomUUID();

    // Act
    const first = await narrow(owner.token, key.id, { scopes: ['read', 'keys'] }, idempotencyKey);
    await setScopes(owner.id, key.id, ['read', 'certify', 'keys']);
    const replayed = await narrow(
      owner.token,
      key.id,
      { scopes: ['read', 'keys'] },
      idempotencyKey,
    );
    const reused = await narrow(owner.token, key.id, { scopes: ['read'] }, idempotencyKey);
    const adminFirst = await setScopes(owner.id, other.id, ['read', 'track'], 'admin-once');
    const adminReplayed = await setScopes(owner.id, other.id, ['read', 'track'], 'admin-once');

    // Assert
    expect(first.status).toBe(200);
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(first.body);
    expect(reused.status).toBe(422);
    expect(adminReplayed.headers['idempotent-replayed']).toBe('true');
    expect(adminReplayed.body).toEqual(adminFirst.body);
    const keys = new Map((await keysOf(owner.id)).map((listed) => [listed.id, listed.scopes]));
    expect(keys.get(key.id)).toEqual(['read', 'certify', 'keys']);
    expect(keys.get(other.id)).toEqual(['read', 'track']);
    expect(await scopeChanges(key.id)).toHaveLength(2);
    expect(await scopeChanges(other.id)).toHaveLength(1);
  });

  it("when a key is revoked, another user's, or not there, then 400, 404, 404", async () => {
    // Arrange
    const owner = await api.user();
    const stranger = await api.user();
    const revoked = await makeKey(owner.token, { scopes: ['read', 'keys'] });
    await request(api.app)
      .delete(`/cert/v2/api-keys/${revoked.id}`)
      .set('Authorization', bearer(owner.token))
      .expect(200);
    const theirs = await makeKey(stranger.token, { scopes: ['read', 'keys'] });

    // Act
    const onRevoked = await narrow(owner.token, revoked.id, { scopes: ['read'] });
    const onTheirs = await narrow(owner.token, theirs.id, { scopes: ['read'] });
    const onNone = await narrow(owner.token, 'A0000000000b', { scopes: ['read'] });
    const adminOnTheirs = await setScopes(owner.id, theirs.id, ['read']);
    const adminOnNobody = await setScopes(`nobody-${randomUUID()}`, theirs.id, ['read']);

    // Assert
    expect(onRevoked.status).toBe(400);
    expect(onRevoked.body.errors).toEqual([
      { field: 'path.keyId', error: expect.stringContaining('revoked') as string },
    ]);
    expect([onTheirs, onNone, adminOnTheirs, adminOnNobody].map((r) => r.status)).toEqual([
      404, 404, 404, 404,
    ]);
    expect((await keysOf(stranger.id))[0]?.scopes).toEqual(['read', 'keys']);
  });

  it('when scope changes, children made with the key and changes from the administrator race, then every key stays within the key it was made with, and the log ends with the scopes the key has', async () => {
    // Arrange
    const owner = await api.user();
    const all = ['read', 'certify', 'track', 'keys', 'webhooks'];
    const parent = await makeKey(owner.token, { scopes: all });
    const parentToken = await exchange(parent);
    const child = await makeKey(parent.key, { scopes: ['read', 'certify', 'keys', 'webhooks'] });
    const subsets = [
      ['read', 'certify', 'track', 'keys'],
      ['read', 'keys', 'webhooks'],
      ['certify', 'keys'],
      ['read', 'track', 'keys'],
      ['read', 'keys'],
      ['keys', 'webhooks'],
    ];

    // Act
    const outcomes = await Promise.all([
      ...subsets.map((scopes) => narrow(owner.token, parent.id, { scopes })),
      ...subsets.map((scopes) => setScopes(owner.id, parent.id, scopes)),
      ...subsets.slice(0, 3).map((scopes) => narrow(owner.token, child.id, { scopes })),
      ...Array.from({ length: 8 }, (_, index) =>
        request(api.app)
          .post('/cert/v2/api-keys')
          .set('Authorization', bearer(index % 2 === 0 ? parent.key : parentToken))
          .send({ name: `raced-${String(index)}` }),
      ),
    ]);

    // Assert
    for (const outcome of outcomes) expect([200, 201, 403]).toContain(outcome.status);
    const keys = await keysOf(owner.id);
    const byId = new Map(keys.map((listed) => [listed.id, listed]));
    for (const listed of keys) {
      if (listed.revokedAt !== null || listed.parentKeyId === null) continue;
      const itsParent = byId.get(listed.parentKeyId);
      expect(itsParent?.revokedAt).toBeNull();
      for (const scope of listed.scopes) expect(itsParent?.scopes).toContain(scope);
    }
    const changes = await scopeChanges(parent.id);
    expect(changes.length).toBeGreaterThan(0);
    // Newest first: the last change leaves the key as it is.
    expect((changes[0]?.changes as { to: string[] }).to).toEqual(byId.get(parent.id)?.scopes);
    const made = outcomes.filter((outcome) => outcome.status === 201);
    expect(keys.filter((listed) => listed.parentKeyId === parent.id)).toHaveLength(made.length + 1);
  });
});
