import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { startEmbeddedChain } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from './support/cli-fixture.js';
import {
  runTrustpoint as run,
  trustpointProcess,
  untilRunning,
  type RoleProcess,
} from './support/role-process.js';

const COMPOSE_FILE = join(__dirname, '..', '..', '..', 'docker-compose.yml');

/** The `command:` of a service of docker-compose.yml: the arguments the image's trustpoint gets. */
async function composeCommand(service: string): Promise<string[]> {
  const compose = await readFile(COMPOSE_FILE, 'utf8');
  const block = new RegExp(`^  ${service}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(compose)?.[1];
  const command = block && /^ {4}command: (\[.*\])$/m.exec(block)?.[1];
  if (!command) throw new Error(`docker-compose.yml has no command for ${service}`);
  return JSON.parse(command) as string[];
}

describe.skipIf(!process.env.DATABASE_URL)(
  'the first administrator, as docker-compose.yml makes it on PostgreSQL (skipped unless DATABASE_URL is set)',
  () => {
    let env: NodeJS.ProcessEnv;
    let stop: () => Promise<void>;
    const started: RoleProcess[] = [];

    beforeAll(async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-init-admin-'));
      const database = await freshPostgresDatabase();
      // As the compose file's roles: one database, one data directory, migrations as a step.
      env = {
        DATABASE_URL: database.url,
        TRUSTPOINT_DATA_DIR: dataDir,
        MIGRATE_AT_START: 'false',
      };
      stop = async () => {
        await database.drop();
        await rm(dataDir, { recursive: true, force: true });
      };
    });
    afterAll(async () => {
      for (const process of started) process.child.kill('SIGKILL');
      await Promise.all(started.map((process) => process.exited));
      await stop();
    });

    it('when compose runs migrate then init-admin, then its API key administers the cert role; a second run creates nothing', async () => {
      // Arrange: the chain the roles need, as the compose file's chain service gives it.
      const chainPort = await freePort();
      const config = {
        ...readLauncherConfig({}),
        dataDir: env.TRUSTPOINT_DATA_DIR as string,
        chainPort,
        chainHost: '127.0.0.1',
      };
      const chain = await startEmbeddedChain(
        config,
        join(env.TRUSTPOINT_DATA_DIR as string, 'deployments.json'),
      );
      const roleEnv = { ...env, CHAIN_HOST: '127.0.0.1', CHAIN_PORT: String(chainPort) };

      try {
        // Act
        const migrated = await run(await composeCommand('migrate'), roleEnv);
        const first = await run(await composeCommand('init-admin'), roleEnv);
        const again = await run(await composeCommand('init-admin'), roleEnv);
        const certPort = await freePort();
        const cert = trustpointProcess(await composeCommand('cert'), {
          ...roleEnv,
          CERT_API_PORT: String(certPort),
        });
        started.push(cert);
        await untilRunning(cert);
        const key = /^ {2}(tp_\S+)$/m.exec(first.output)?.[1];
        const users = await fetch(`http://127.0.0.1:${String(certPort)}/admin/v1/users`, {
          headers: { Authorization: `Bearer ${key ?? ''}` },
        });

        // Assert
        expect(migrated.code, migrated.output).toBe(0);
        expect(first.code, first.output).toBe(0);
        expect(first.output).toContain('Created the administrator "admin"');
        expect(key).toBeDefined();
        expect(again.code, again.output).toBe(0);
        expect(again.output).toMatch(
          /^An administrator already exists \(admin\): nothing was created/,
        );
        expect(again.output).not.toMatch(/tp_/);
        expect(users.status).toBe(200);
        const listed = (await users.json()) as { data: { users: { id: string; role: string }[] } };
        expect(listed.data.users.map((user) => [user.id, user.role])).toEqual([['admin', 'admin']]);
      } finally {
        await chain.stop();
      }
    }, 180_000);

    it('when init-admin runs before the migrations, then it says to run trustpoint migrate first', async () => {
      // Arrange
      const database = await freshPostgresDatabase();

      try {
        // Act
        const early = await run(['init-admin'], { ...env, DATABASE_URL: database.url });

        // Assert
        expect(early.code).toBe(1);
        expect(early.output).toMatch(/run trustpoint migrate first/);
      } finally {
        await database.drop();
      }
    });
  },
);

describe('the first administrator of the embedded database', () => {
  it("when the service anchors on the networks of TRUSTPOINT_NETWORKS_FILE, then the first plan it suggests names those networks, not the embedded chain's", async () => {
    // Arrange: a data directory of its own, its networks file beside it (read as the roles read it).
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-init-admin-'));
    await writeFile(
      join(dataDir, 'networks.json'),
      JSON.stringify({
        networks: [
          { networkId: '11155111', rpcUrl: 'https://sepolia.example' },
          { networkId: 137, rpcUrl: 'https://polygon.example' },
        ],
      }),
    );
    const env = { DATABASE_URL: '', TRUSTPOINT_DATA_DIR: dataDir, INIT_CWD: dataDir };
    const embeddedDir = join(dataDir, 'embedded');
    const migrated = [
      await run(['migrate'], env),
      await run(['migrate'], { ...env, TRUSTPOINT_DATA_DIR: embeddedDir }),
    ];

    try {
      // Act
      const withFile = await run(['init-admin'], {
        ...env,
        TRUSTPOINT_NETWORKS_FILE: 'networks.json',
      });
      const embedded = await run(['init-admin', '--id', 'second'], {
        ...env,
        TRUSTPOINT_DATA_DIR: embeddedDir,
      });

      // Assert
      expect(migrated.map(({ code }) => code)).toEqual([0, 0]);
      expect(withFile.code).toBe(0);
      expect(withFile.output).toContain('--networks 11155111,137\n');
      expect(embedded.code).toBe(0);
      expect(embedded.output).toContain('--networks 31337\n');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
