// The app as a deployment runs it: `node dist/main.js` (the package's bin), configured by the
// environment, on a real PostgreSQL and the embedded chain of a data directory.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@trustpoint/db';
import { startEmbeddedChain } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import { describe, expect, it } from 'vitest';

const MAIN = join(__dirname, '..', 'dist', 'main.js');
const ROLE = 'track';
const PORT_VARIABLE = 'TRACK_API_PORT';
const BASE_PATH = '/track/v2';
const serverUrl = process.env.DATABASE_URL;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => {
        resolve(port);
      });
    });
  });
}

function run(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, output: () => output };
}

describe(`the ${ROLE} app`, () => {
  it('when DATABASE_URL is missing, then it refuses in one line with exit 2', async () => {
    const app = run({ DATABASE_URL: '' });

    expect(await app.exited).toBe(2);
    expect(app.output()).toMatch(new RegExp(`^error: trustpoint serve ${ROLE} needs DATABASE_URL`));
  });

  it.skipIf(!serverUrl)(
    'when it has PostgreSQL and a chain, then it serves its API and stops on SIGTERM with exit 0',
    async () => {
      // Arrange: a fresh database and the embedded chain of a data directory.
      const dataDir = await mkdtemp(join(tmpdir(), `trustpoint-${ROLE}-app-`));
      const name = `trustpoint_${ROLE}_app_${String(Date.now())}`;
      const server = await createDatabase({ url: serverUrl ?? '', migrate: false, poolMax: 1 });
      await server.knex.raw('create database ??', [name]);
      const url = new URL(serverUrl ?? '');
      url.pathname = `/${name}`;
      const chainPort = await freePort();
      const config = { ...readLauncherConfig({}), dataDir, chainPort, chainHost: '127.0.0.1' };
      const chain = await startEmbeddedChain(config, join(dataDir, 'deployments.json'));
      const port = await freePort();
      try {
        // Act
        const app = run({
          TRUSTPOINT_DATA_DIR: dataDir,
          DATABASE_URL: url.toString(),
          CHAIN_HOST: '127.0.0.1',
          CHAIN_PORT: String(chainPort),
          [PORT_VARIABLE]: String(port),
        });
        const origin = `http://127.0.0.1:${String(port)}`;
        const deadline = Date.now() + 60_000;
        while (!app.output().includes(`is running at ${origin}${BASE_PATH}`)) {
          if (Date.now() > deadline || app.child.exitCode !== null) throw new Error(app.output());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }

        // Assert: it answers as its API, on the database it migrated.
        const health = await fetch(`${origin}/healthz`);
        const networks = await fetch(`${origin}${BASE_PATH}/networks`);
        expect(health.status, await health.text()).toBe(200);
        expect(networks.status).toBe(200);
        expect(JSON.stringify(await networks.json())).toContain('31337');
        app.child.kill('SIGTERM');
        expect(await app.exited).toBe(0);
      } finally {
        await chain.stop();
        await server.knex.raw('drop database if exists ?? with (force)', [name]);
        await server.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
