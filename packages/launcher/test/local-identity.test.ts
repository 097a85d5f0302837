import { createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findUserAccount, updateUser } from '@trustpoint/db';
import { openTestDatabase, testBackends } from '@trustpoint/test-database';
import { describe, expect, it } from 'vitest';
import { ensureLocalUser, LOCAL_USER_ID, loadOrCreateSecrets } from '../src/local-identity.js';
import { RoleConfigError } from '../src/role-config-error.js';

async function secretsPath(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'trustpoint-secrets-')), 'secrets.json');
}

describe('local secrets', () => {
  it('when no secrets file exists, then one is made (0600) with a P-256 signing key and kept across loads', async () => {
    const path = await secretsPath();

    const first = await loadOrCreateSecrets(path);
    const second = await loadOrCreateSecrets(path);

    expect(second).toEqual(first);
    const key = createPrivateKey(first.signingKey);
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect((await stat(path)).mode & 0o077).toBe(0);
  });

  it('when a secrets file predates signing keys, then a key is added and the other secrets are kept', async () => {
    const path = await secretsPath();
    const older = { jwtSecret: 'j'.repeat(43), pinKey: 'p'.repeat(43) };
    await writeFile(path, JSON.stringify(older), { mode: 0o600 });

    const secrets = await loadOrCreateSecrets(path);

    expect(secrets).toMatchObject(older);
    expect(secrets.signingKey).toContain('-----BEGIN PRIVATE KEY-----');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(secrets);
  });

  it.each([
    [
      'a jwtSecret under 32 characters',
      { jwtSecret: 'j'.repeat(31), pinKey: 'p'.repeat(43) },
      'its jwtSecret is not a string of 32 characters or more',
    ],
    ['no pinKey', { jwtSecret: 'j'.repeat(43), signingKey: 'k' }, 'it has no pinKey'],
    ['text that is not JSON', '{"jwtSecret": "j', 'it is not JSON'],
    ['null', null, 'it is not a JSON object'],
  ])(
    'when the secrets file holds %s, then the start stops naming it and the file is left as it was (never replaced: its PIN and signing keys would be lost)',
    async (_what, content, problem) => {
      // Arrange
      const path = await secretsPath();
      const text = typeof content === 'string' ? content : JSON.stringify(content);
      await writeFile(path, text, { mode: 0o600 });

      // Act
      const refusal = await loadOrCreateSecrets(path).catch((error: unknown) => error);

      // Assert
      expect(refusal).toBeInstanceOf(RoleConfigError);
      expect((refusal as Error).message).toContain(`${path}: ${problem}`);
      expect(await readFile(path, 'utf8')).toBe(text);
    },
  );

  it("when the deployment gives the JWT secret and PIN key, then they replace the file's, which keeps the signing key", async () => {
    const path = await secretsPath();
    const fromFile = await loadOrCreateSecrets(path);
    const given = { jwtSecret: 's'.repeat(40), pinKey: Buffer.alloc(32, 7).toString('base64url') };

    const secrets = await loadOrCreateSecrets(path, given);

    expect(secrets).toEqual({ ...given, signingKey: fromFile.signingKey });
  });
});

// Opening an embedded PGlite takes a few seconds.
describe.each(testBackends())('the local user on %s', { timeout: 60_000 }, (backend) => {
  it('when the database is new, then the local user is made an admin with credits', async () => {
    // Arrange
    const db = await openTestDatabase(backend);
    try {
      // Act
      await ensureLocalUser(db.knex, ['31337']);

      // Assert
      expect(await findUserAccount(db.knex, LOCAL_USER_ID)).toMatchObject({
        role: 'admin',
        qualified: true,
        planNetworkIds: ['31337'],
        credits: 1_000_000,
      });
    } finally {
      await db.close();
    }
  });

  it('when the local user predates roles, then its next start makes it an admin and keeps its credits', async () => {
    // Arrange
    const db = await openTestDatabase(backend);
    try {
      await ensureLocalUser(db.knex, ['31337']);
      await updateUser(db.knex, LOCAL_USER_ID, { role: 'user' });
      await db.knex('credits').where('user_id', LOCAL_USER_ID).update({ balance: 7 });

      // Act
      await ensureLocalUser(db.knex, ['31337']);

      // Assert
      expect(await findUserAccount(db.knex, LOCAL_USER_ID)).toMatchObject({
        role: 'admin',
        credits: 7,
      });
    } finally {
      await db.close();
    }
  });
});
