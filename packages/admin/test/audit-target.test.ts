import { testBackends } from '@trustpoint/test-database';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE_PATH } from '../src/index.js';
import { startAdminApi, type AdminFixture } from './support/admin-fixture.js';

const request = checkedRequest(ADMIN_API_BASE_PATH);
const at = (path: string) => `${ADMIN_API_BASE_PATH}${path}`;

interface AuditPage {
  data: { entries: { action: string; target: string }[] };
}

// What `trustpoint admin audit --target user:<id>` asks for.
describe.each(testBackends())('the audit log by target on %s', (backend) => {
  let api: AdminFixture;
  let admin: Awaited<ReturnType<AdminFixture['givenUser']>>;

  beforeAll(async () => {
    api = await startAdminApi(backend);
    admin = await api.givenUser({ role: 'admin' });
  });
  afterAll(async () => {
    await api.close();
  });

  it("when the target is a user, then the entries on that user's API keys are listed, and no one else's", async () => {
    // Arrange: a key for each of two users; one revoked.
    const acme = await api.givenUser();
    const other = await api.givenUser();
    const created = await request(api.app)
      .post(at(`/users/${acme.id}/api-keys`))
      .set(admin.auth)
      .send({ name: 'import job' });
    const keyId = (created.body as { data: { id: string } }).data.id;
    await request(api.app)
      .delete(at(`/users/${acme.id}/api-keys/${keyId}`))
      .set(admin.auth);
    await request(api.app)
      .post(at(`/users/${other.id}/api-keys`))
      .set(admin.auth)
      .send({ name: 'not acme' });
    await request(api.app)
      .patch(at(`/users/${acme.id}`))
      .set(admin.auth)
      .send({ displayName: 'Acme' });

    // Act
    const response = await request(api.app)
      .get(at('/audit'))
      .query({ target: `user:${acme.id}` })
      .set(admin.auth);

    // Assert
    expect(response.status).toBe(200);
    expect(
      (response.body as AuditPage).data.entries.map((entry) => [entry.action, entry.target]),
    ).toEqual([
      ['user.update', `user:${acme.id}`],
      ['api-key.revoke', `api-key:${keyId}`],
      ['api-key.create', `api-key:${keyId}`],
    ]);
  });
});
