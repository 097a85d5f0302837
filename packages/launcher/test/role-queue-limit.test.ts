import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countPendingAnchorRecords, createUser, savePlan } from '@trustpoint/db';
import { freshPostgresDatabase } from '@trustpoint/test-database';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { launch, startEmbeddedChain } from '../src/launcher.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });
const LIMIT = 3;

// Roles need PostgreSQL; they run only where DATABASE_URL names a server (as in CI).
describe.skipIf(!process.env.DATABASE_URL)('the queue limit in an API-only process', () => {
  it('when serve cert runs with no anchoring process, then creations past the networks file limit get 503 with Retry-After, and once serve anchor has drained the queue they are taken again', async () => {
    // Arrange
    const database = await freshPostgresDatabase('trustpoint_role_queue');
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-role-queue-'));
    const probe = await testLaunchConfig(dataDir);
    const networksFile = join(dataDir, 'networks.json');
    await writeFile(
      networksFile,
      JSON.stringify({
        networks: [
          {
            networkId: '31337',
            rpcUrl: `http://${probe.chainHost}:${String(probe.chainPort)}`,
            chainId: 31337,
            acknowledgement: 'async',
            maxQueuedRecords: LIMIT,
          },
        ],
      }),
    );
    const config = { ...probe, databaseUrl: database.url, networksFile };
    const chain = await startEmbeddedChain(config, join(dataDir, 'deployments.json'));
    const cert = await launch('cert', config, silent);
    let anchor: Awaited<ReturnType<typeof launch>> | undefined;
    try {
      const userId = `user-${randomUUID()}`;
      await savePlan(cert.database.knex, {
        id: `plan-${userId}`,
        name: 'queue',
        networkIds: ['31337'],
      });
      await createUser(cert.database.knex, {
        id: userId,
        displayName: userId,
        planId: `plan-${userId}`,
        qualified: false,
        initialCredits: 20,
      });
      const token = await cert.mintToken(userId);
      const create = () =>
        fetch(`${cert.url ?? ''}/certificates?type=content&networkId=31337`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Busy', description: '', content: { n: randomUUID() } }),
        });

      // Act: nothing anchors, the queue fills.
      const answers = await Promise.all(Array.from({ length: 7 }, create));

      // Assert
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([202, 202, 202, 503, 503, 503, 503]);
      for (const answer of answers.filter((a) => a.status === 503)) {
        expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(((await answer.json()) as { type: string }).type).toBe('Service Unavailable Error');
      }
      expect(await countPendingAnchorRecords(cert.database.knex, '31337', 100)).toBe(LIMIT);

      // Act: an anchoring process takes the queue.
      anchor = await launch('anchor', config, silent);
      const deadline = Date.now() + 60_000;
      while (
        (await countPendingAnchorRecords(cert.database.knex, '31337', 100)) > 0 &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const again = await create();

      // Assert
      expect(again.status).toBe(202);
    } finally {
      await anchor?.stop();
      await cert.stop();
      await chain.stop();
      await database.drop();
    }
  }, 180_000);
});
