import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from './support/cli-fixture.js';
import { trustpointProcess, untilRunning, type RoleProcess } from './support/role-process.js';

// The README once pointed the roles at the chain `npm start` runs, whose own engine anchors with
// the same registrar key: the two collided on its nonces.
describe.skipIf(!process.env.DATABASE_URL)(
  'an anchoring role beside trustpoint start on one data directory (skipped unless DATABASE_URL is set)',
  () => {
    const started: RoleProcess[] = [];
    const cleanups: (() => Promise<void>)[] = [];

    afterAll(async () => {
      for (const process of started) process.child.kill('SIGKILL');
      await Promise.all(started.map((process) => process.exited));
      for (const cleanup of cleanups) await cleanup();
    });

    it('when serve anchor starts on the data directory of a running trustpoint start, then it refuses with exit 2, saying why and what to run', async () => {
      // Arrange: what `npm start` runs, on the embedded database.
      const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-shared-key-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      const chainPort = String(await freePort());
      const shared = {
        TRUSTPOINT_DATA_DIR: dataDir,
        CHAIN_HOST: '127.0.0.1',
        CHAIN_PORT: chainPort,
      };
      const service = trustpointProcess(['serve', 'all'], {
        ...shared,
        DATABASE_URL: '',
        CERT_API_PORT: String(await freePort()),
        TRACK_API_PORT: String(await freePort()),
      });
      started.push(service);
      await untilRunning(service);
      const database = await freshPostgresDatabase();
      cleanups.push(() => database.drop());

      // Act: the roles pointed at its chain and deployments, as the README once said.
      const anchor = trustpointProcess(['serve', 'anchor'], {
        ...shared,
        DATABASE_URL: database.url,
        HEALTH_PORT: String(await freePort()),
      });
      started.push(anchor);
      const code = await anchor.exited;

      // Assert
      expect(code, anchor.output()).toBe(2);
      expect(anchor.output()).toContain(
        `error: trustpoint serve anchor would share its registrar key with the service running on ${dataDir} (pid ${String(service.child.pid)}`,
      );
      expect(anchor.output()).toContain('Give the roles a chain of their own');
    }, 180_000);
  },
);
