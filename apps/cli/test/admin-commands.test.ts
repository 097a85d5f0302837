import { randomUUID } from 'node:crypto';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { startService, trustpoint, type RunningService } from './support/cli-fixture.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe.each(testBackends())('trustpoint admin against a running service on %s', (backend) => {
  let service: RunningService;
  /** `trustpoint admin <args>` as the local admin, the way an operator passes its token. */
  const admin = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    trustpoint(['admin', ...args, '--url', service.url], {
      TRUSTPOINT_TOKEN: service.running.token,
      ...env,
    });
  const json = async <T>(args: string[]) => {
    const result = await admin([...args, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT.ok);
    return JSON.parse(result.stdout) as T;
  };

  beforeAll(async () => {
    service = await startService(backend);
  }, 120_000);

  afterAll(async () => {
    await service.stop();
  });

  it('when an operator adds a customer with a plan and credits and hands them a token, then the customer can certify with it', async () => {
    const plan = unique('plan');
    const customer = unique('customer');

    const planCreated = await admin([
      'plans',
      'create',
      plan,
      '--name',
      'Basic',
      '--networks',
      '31337',
    ]);
    const userCreated = await admin([
      'users',
      'create',
      customer,
      '--name',
      'Customer',
      '--plan',
      plan,
      '--credits',
      '3',
    ]);
    const granted = await admin(['credits', 'grant', customer, '2', '--reason', 'welcome']);
    const token = await admin(['tokens', 'create', customer, '--expires-in', '600']);

    expect([planCreated.code, userCreated.code, granted.code, token.code]).toEqual([0, 0, 0, 0]);
    expect(userCreated.stdout).toContain(customer);
    expect(granted.stdout).toContain('now has 5 credits (+2)');
    const certified = await fetch(
      `${service.running.certApiUrl}/certificates?type=content&networkId=31337`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token.stdout.trim()}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ name: 'First', description: '', content: { n: 1 } }),
      },
    );
    expect(certified.status).toBe(201);
    const shown = await json<{ credits: number; planId: string; networkIds: string[] }>([
      'users',
      'show',
      customer,
    ]);
    expect(shown).toMatchObject({ credits: 4, planId: plan, networkIds: ['31337'] });
  });

  it('when users are listed, updated, disabled and enabled, then tables and JSON show each change and a disabled user is refused at once', async () => {
    const id = unique('user');
    await admin(['users', 'create', id, '--name', 'Before', '--plan', 'local']);
    const userToken = (await admin(['tokens', 'create', id])).stdout.trim();
    const certificates = (token = userToken) =>
      fetch(`${service.running.certApiUrl}/certificates`, {
        headers: { Authorization: `Bearer ${token}` },
      });

    const updated = await json<{ displayName: string; qualified: boolean; role: string }>([
      'users',
      'update',
      id,
      '--name',
      'After',
      '--qualified',
      '--role',
      'admin',
    ]);
    const listed = await admin(['users', 'list', '--limit', '100']);
    const disabled = await json<{ disabled: boolean }>([
      'users',
      'disable',
      id,
      '--reason',
      'unpaid',
    ]);
    const refused = await certificates();
    const onlyDisabled = await json<{ users: { id: string }[] }>([
      'users',
      'list',
      '--disabled',
      '--limit',
      '100',
    ]);
    const enabled = await json<{ disabled: boolean }>(['users', 'enable', id]);
    // A token issued before the disabling stays dead; one issued after the enabling works.
    const stillRefused = await certificates();
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // a token's iat counts in seconds
    const newToken = (await admin(['tokens', 'create', id])).stdout.trim();
    const accepted = await certificates(newToken);

    expect(updated).toMatchObject({ displayName: 'After', qualified: true, role: 'admin' });
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.stdout).toMatch(/│ id\s+│ name\s+│ role/);
    expect(listed.stdout).toContain(id);
    expect(disabled.disabled).toBe(true);
    expect(refused.status).toBe(401);
    expect(onlyDisabled.users.map((user) => user.id)).toContain(id);
    expect(enabled.disabled).toBe(false);
    expect(stillRefused.status).toBe(401);
    expect(accepted.status).toBe(200);
  });

  it('when plans are created, listed, shown and updated, then each answer shows the networks, and an unconfigured network is a usage error', async () => {
    const plan = unique('plan');

    await admin(['plans', 'create', plan, '--name', 'Trial', '--networks', '31337']);
    const updated = await json<{ name: string; networkIds: string[] }>([
      'plans',
      'update',
      plan,
      '--name',
      'Paid',
      '--networks',
      '31337',
    ]);
    const listed = await json<{ id: string }[]>(['plans', 'list']);
    const unknownNetwork = await admin([
      'plans',
      'create',
      unique('plan'),
      '--name',
      'X',
      '--networks',
      '999999',
    ]);
    const emptyNetwork = await admin(['plans', 'update', plan, '--networks', '31337,']);

    expect(updated).toEqual({ id: plan, name: 'Paid', networkIds: ['31337'] });
    expect(listed.map((entry) => entry.id)).toContain(plan);
    expect(unknownNetwork.code).toBe(EXIT.usage);
    expect(unknownNetwork.stderr).toContain('body.networkIds');
    expect(emptyNetwork.code).toBe(EXIT.usage);
  });

  it('when credits are granted and set, then the history lists each movement with its actor and reason, newest first', async () => {
    const id = unique('user');
    await admin(['users', 'create', id, '--name', 'Credits', '--plan', 'local', '--credits', '10']);

    await admin(['credits', 'grant', id, '5', '--reason', 'top-up']);
    const set = await json<{ balance: number; movement: { amount: number } }>([
      'credits',
      'set',
      id,
      '4',
    ]);
    const history = await json<{
      balance: number;
      movements: {
        kind: string;
        amount: number;
        balanceAfter: number;
        actor: string | null;
        reason: string | null;
      }[];
    }>(['credits', 'history', id]);
    const table = await admin(['credits', 'history', id]);

    expect(set).toMatchObject({ balance: 4, movement: { amount: -11 } });
    expect(history.balance).toBe(4);
    expect(history.movements.slice(0, 2)).toMatchObject([
      { kind: 'set', amount: -11, balanceAfter: 4, actor: 'local-admin' },
      { kind: 'grant', amount: 5, balanceAfter: 15, actor: 'local-admin', reason: 'top-up' },
    ]);
    expect(table.stdout).toContain(`${id}: 4 credits`);
  });

  it('when the audit log is read, then it names who created a user, in which request, filtered by action and target', async () => {
    const id = unique('user');
    await admin(['users', 'create', id, '--name', 'Audited', '--plan', 'local']);

    const page = await json<{
      entries: { actor: string; action: string; target: string; requestId: string | null }[];
    }>(['audit', '--action', 'user.create', '--target', `user:${id}`]);
    const table = await admin(['audit', '--target', `user:${id}`]);

    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      actor: 'local-admin',
      action: 'user.create',
      target: `user:${id}`,
    });
    expect(page.entries[0]?.requestId).toBeTruthy();
    expect(table.stdout).toContain('user.create');
  });

  it('when the caller is no admin, then exit 3 and nothing changes; unknown, repeated and malformed requests exit 4, 5 and 2', async () => {
    const id = unique('user');
    await admin(['users', 'create', id, '--name', 'Plain', '--plan', 'local']);
    const userToken = (await admin(['tokens', 'create', id])).stdout.trim();

    const asUser = await admin(['credits', 'grant', id, '100'], { TRUSTPOINT_TOKEN: userToken });
    const badToken = await admin(['users', 'list'], { TRUSTPOINT_TOKEN: 'not-a-token' });
    const unknown = await admin(['users', 'show', unique('nobody')]);
    const repeated = await admin(['users', 'create', id, '--name', 'Again', '--plan', 'local']);
    const badAmount = await admin(['credits', 'grant', id, '-3']);
    const missing = await admin(['users', 'create', unique('user'), '--plan', 'local']);

    expect(asUser.code).toBe(EXIT.unauthorized);
    expect(asUser.stderr).toContain('This operation requires an administrator');
    expect(badToken.code).toBe(EXIT.unauthorized);
    expect(badToken.stderr).toContain('Token is invalid');
    expect((await json<{ credits: number }>(['users', 'show', id])).credits).toBe(0);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(repeated.code).toBe(EXIT.conflict);
    expect(badAmount.code).toBe(EXIT.usage);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain("required option '--name <displayName>'");
  });

  it('when an admin makes a customer an API key, then the key certifies until it is revoked, and the list shows it revoked', async () => {
    const id = unique('machine');
    await admin(['users', 'create', id, '--name', 'Machine', '--plan', 'local', '--credits', '5']);
    const certify = (key: string) =>
      fetch(`${service.running.certApiUrl}/certificates?type=content&networkId=31337`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'By key', description: '', content: { n: Math.random() } }),
      });

    const created = await admin(['keys', 'create', id, '--name', 'billing server']);
    const key = created.stdout.trim().split('\n').at(-1) ?? '';
    const keyId = /│ id\s+│ (\S+)/.exec(created.stdout)?.[1] ?? '';
    const before = await certify(key);
    const revoked = await admin(['keys', 'revoke', id, keyId]);
    const after = await certify(key);
    const listed = await json<{ id: string; name: string; revokedAt: string | null }[]>([
      'keys',
      'list',
      id,
    ]);
    const expired = await admin([
      'keys',
      'create',
      id,
      '--name',
      'old',
      '--expires-at',
      '2001-01-01',
    ]);
    const badDate = await admin(['keys', 'create', id, '--name', 'x', '--expires-at', 'soon']);

    expect(created.code).toBe(EXIT.ok);
    expect(key).toMatch(/^tp_live_/);
    expect(before.status).toBe(201);
    expect(revoked.code).toBe(EXIT.ok);
    expect(after.status).toBe(401);
    expect(listed).toEqual([expect.objectContaining({ id: keyId, name: 'billing server' })]);
    expect(listed[0]?.revokedAt).toBeTruthy();
    expect(expired.code).toBe(EXIT.usage);
    expect(badDate.code).toBe(EXIT.usage);
  });

  it('when an admin makes a customer a read-only key, then trustpoint account shows its scopes, credits and movements, and the key cannot certify', async () => {
    const id = unique('reader');
    await admin(['users', 'create', id, '--name', 'Reader', '--plan', 'local', '--credits', '7']);
    await admin(['credits', 'grant', id, '3', '--reason', 'welcome']);

    const created = await admin(['keys', 'create', id, '--name', 'dashboard', '--scopes', 'read']);
    const key = created.stdout.trim().split('\n').at(-1) ?? '';
    const account = await trustpoint(['account', '--url', service.url, '--json'], {
      TRUSTPOINT_TOKEN: key,
    });
    const shown = await trustpoint(['account', '--url', service.url], { TRUSTPOINT_TOKEN: key });
    const certified = await fetch(
      `${service.running.certApiUrl}/certificates?type=content&networkId=31337`,
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Refused', description: '', content: { n: 1 } }),
      },
    );
    const badScope = await admin(['keys', 'create', id, '--name', 'x', '--scopes', 'read,all']);

    expect(created.code).toBe(EXIT.ok);
    expect(created.stdout).toMatch(/│ scopes\s+│ read\s/);
    expect(account.code).toBe(EXIT.ok);
    const answer = JSON.parse(account.stdout) as {
      account: { userId: string; credits: number; credential: { scopes: string[] } };
      movements: { kind: string; amount: number; reason: string | null }[];
    };
    expect(answer.account).toMatchObject({ userId: id, credits: 10 });
    expect(answer.account.credential.scopes).toEqual(['read']);
    expect(answer.movements[0]).toMatchObject({ kind: 'grant', amount: 3, reason: 'welcome' });
    expect(shown.code).toBe(EXIT.ok);
    expect(shown.stdout).toContain('welcome');
    expect(certified.status).toBe(403);
    expect(badScope.code).toBe(EXIT.usage);
  });

  it("when an operator sets a key's scopes, then the key does what they say from its next request, keys list shows them, and trustpoint account lists the credit it spent", async () => {
    const id = unique('scoped');
    await admin(['users', 'create', id, '--name', 'Scoped', '--plan', 'local', '--credits', '5']);
    const created = await json<{ id: string; key: string }>([
      'keys',
      'create',
      id,
      '--name',
      'importer',
      '--scopes',
      'read',
    ]);
    const certify = () =>
      fetch(`${service.running.certApiUrl}/certificates?type=content&networkId=31337`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${created.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Scoped', description: '', content: { n: randomUUID() } }),
      });

    const before = await certify();
    const widened = await admin(['keys', 'set-scopes', id, created.id, '--scopes', 'read,certify']);
    const after = await certify();
    const certID = ((await after.json()) as { data: { certID: string } }).data.certID;
    const account = await trustpoint(['account', '--url', service.url, '--json'], {
      TRUSTPOINT_TOKEN: created.key,
    });
    const narrowed = await admin(['keys', 'set-scopes', id, created.id, '--scopes', 'read']);
    const refused = await certify();
    const listed = await json<{ scopes: string[] }[]>(['keys', 'list', id]);
    const unknown = await admin(['keys', 'set-scopes', id, created.id, '--scopes', 'read,all']);
    const missing = await admin(['keys', 'set-scopes', id, 'A0000000000b', '--scopes', 'read']);

    expect(before.status).toBe(403);
    expect(widened.code).toBe(EXIT.ok);
    expect(widened.stdout).toMatch(/│ scopes\s+│ read certify\s/);
    expect(after.status).toBe(201);
    const movements = (JSON.parse(account.stdout) as { movements: unknown[] }).movements;
    expect(movements[0]).toMatchObject({
      kind: 'spend',
      amount: -1,
      balanceAfter: 4,
      spentOn: { operation: 'certificate.create', certID },
    });
    expect(narrowed.code).toBe(EXIT.ok);
    expect(refused.status).toBe(403);
    expect(listed.map((key) => key.scopes)).toEqual([['read']]);
    expect(unknown.code).toBe(EXIT.usage);
    expect(missing.code).toBe(EXIT.notFound);
  });

  it('when --json is asked and the service refuses, then stderr holds its error body as JSON', async () => {
    const result = await admin(['users', 'show', unique('nobody'), '--json']);

    expect(result.code).toBe(EXIT.notFound);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({
      body: { statusCode: 404, type: 'Not Found Error' },
    });
  });

  it('when no token is given, then the one the service left in its data directory is used', async () => {
    const { writeLocalToken } = await import('@trustpoint/launcher/local-token');
    await writeLocalToken(service.dataDir, service.running.token);

    const result = await trustpoint(['admin', 'plans', 'list', '--url', service.url, '--json'], {
      TRUSTPOINT_DATA_DIR: service.dataDir,
    });

    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toContainEqual(expect.objectContaining({ id: 'local' }));
  });
});

describe('trustpoint without a service', () => {
  it('when the service cannot be reached, then exit 6 with the URL tried', async () => {
    const result = await trustpoint(['admin', 'users', 'list', '--url', 'http://127.0.0.1:9'], {
      TRUSTPOINT_TOKEN: 'any',
    });

    expect(result.code).toBe(EXIT.unreachable);
    expect(result.stderr).toContain('cannot reach the service at http://127.0.0.1:9');
  });

  it('when there is no token anywhere, then exit 3 saying where one could come from', async () => {
    const result = await trustpoint(['admin', 'users', 'list'], {
      TRUSTPOINT_DATA_DIR: '/nonexistent/trustpoint',
    });

    expect(result.code).toBe(EXIT.unauthorized);
    expect(result.stderr).toContain('TRUSTPOINT_TOKEN');
  });

  it('when --url is not an http URL, then exit 2', async () => {
    const result = await trustpoint(['admin', 'users', 'list', '--url', 'ftp://x'], {
      TRUSTPOINT_TOKEN: 'any',
    });

    expect(result.code).toBe(EXIT.usage);
  });

  it('when --help is asked of any command, then it prints its usage and exits 0; an unknown command exits 2', async () => {
    const { createProgram } = await import('../src/program.js');
    const paths: string[][] = [];
    const walk = (command: ReturnType<typeof createProgram>, path: string[]) => {
      paths.push(path);
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(createProgram({ stdout: () => undefined, stderr: () => undefined, env: {} }), []);

    for (const path of paths) {
      const result = await trustpoint([...path, '--help']);
      expect({ path, code: result.code }).toEqual({ path, code: EXIT.ok });
      expect(result.stdout).toContain('Usage: trustpoint');
    }
    expect(paths.length).toBeGreaterThan(15);
    expect((await trustpoint(['frobnicate'])).code).toBe(EXIT.usage);
  });
});
