import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startDevChain } from '@trustpoint/contracts';
import { freshPostgresDatabase } from '@trustpoint/test-database';
import { describe, expect, it } from 'vitest';

/** One of the API apps as a deployment runs it. */
export interface ServiceApp {
  /** The role it serves, as `trustpoint serve <role>` names it. */
  role: string;
  /** The built entry point, `node <main>`. */
  main: string;
  /** The variable its port is read from, e.g. `CERT_API_PORT`. */
  portVariable: string;
  /** Where its API is mounted, e.g. `/cert/v2`. */
  basePath: string;
}

function run(main: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, output: () => output };
}

/**
 * The app as a deployment runs it: `node <main>` (the package's bin), configured by the
 * environment. Without DATABASE_URL it refuses; with a real PostgreSQL (a fresh database of the
 * server `DATABASE_URL` names) and the embedded chain of a data directory, it serves its API on
 * the database it migrated and stops on SIGTERM with exit 0.
 */
export function describeServiceApp({ role, main, portVariable, basePath }: ServiceApp): void {
  const serverUrl = process.env.DATABASE_URL;

  describe(`the ${role} app`, () => {
    it('when DATABASE_URL is missing, then it refuses in one line with exit 2', async () => {
      const app = run(main, { DATABASE_URL: '' });

      expect(await app.exited).toBe(2);
      expect(app.output()).toMatch(
        new RegExp(`^error: trustpoint serve ${role} needs DATABASE_URL`),
      );
    });

    it.skipIf(!serverUrl)(
      'when it has PostgreSQL and a chain, then it serves its API and stops on SIGTERM with exit 0',
      async () => {
        // Arrange: a fresh database and the embedded chain of a data directory, as
        // `trustpoint serve all` starts it.
        const dataDir = await mkdtemp(join(tmpdir(), `trustpoint-${role}-app-`));
        const database = await freshPostgresDatabase(`trustpoint_${role}_app`, serverUrl);
        const chainPort = await freePort();
        const chain = await startDevChain({
          dataDir: join(dataDir, 'chain'),
          host: '127.0.0.1',
          port: chainPort,
          deploymentsFile: join(dataDir, 'deployments.json'),
        });
        const port = await freePort();
        try {
          // Act
          const app = run(main, {
            TRUSTPOINT_DATA_DIR: dataDir,
            DATABASE_URL: database.url,
            CHAIN_HOST: '127.0.0.1',
            CHAIN_PORT: String(chainPort),
            [portVariable]: String(port),
          });
          const origin = `http://127.0.0.1:${String(port)}`;
          const deadline = Date.now() + 60_000;
          while (!app.output().includes(`is running at ${origin}${basePath}`)) {
            if (Date.now() > deadline || app.child.exitCode !== null) throw new Error(app.output());
            await new Promise((resolve) => setTimeout(resolve, 100));
          }

          // Assert: it answers as its API, on the database it migrated.
          const health = await fetch(`${origin}/healthz`);
          const networks = await fetch(`${origin}${basePath}/networks`);
          expect(health.status, await health.text()).toBe(200);
          expect(networks.status).toBe(200);
          expect(JSON.stringify(await networks.json())).toContain('31337');
          app.child.kill('SIGTERM');
          expect(await app.exited).toBe(0);
        } finally {
          await chain.stop();
          await database.drop();
          await rm(dataDir, { recursive: true, force: true });
        }
      },
      120_000,
    );
  });
}
