import { readNetworkHealth, recordNetworkHealth } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { afterEach, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import { shareNetworkHealth, watchNetworkHealth } from '../src/anchoring/shared-network-health.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { networkFor } from './support/test-chain.js';

const ZERO = '0x0000000000000000000000000000000000000000';
const network = networkFor('http://127.0.0.1:9', {
  trustPointRegistry: ZERO,
  evidenceRepository: ZERO,
});

const notReady = (checkedAt: Date) => ({
  networkId: '31337',
  state: 'notReady' as const,
  reason: 'registrar holds 0.0',
  balanceWei: '0',
  requiredWei: '3600000000000000',
  checkedAt,
});

/** Retries `check` every 20 ms for up to 10 s (a loaded machine included), then lets it throw. */
const eventually = async (check: () => void) => {
  for (const deadline = Date.now() + 10_000; ;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
};

describe.each(testBackends())(
  'Network health shared between processes (%s)',
  { timeout: 60_000 },
  (backend) => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.close();
      database = undefined;
    });

    it('when an anchoring process finds the registrar unfunded, then an API process that does not anchor refuses with 503 at once, and accepts again once it is funded', async () => {
      // Arrange: the API process's engine, which does not anchor, watching the table.
      database = await openTestDatabase(backend);
      const apiEngine = new AnchorEngine(database.knex, new NetworkRegistry([network]), {
        anchoring: false,
      });
      const watch = watchNetworkHealth(database.knex, apiEngine, ['31337'], { intervalMs: 20 });
      const share = shareNetworkHealth(database.knex, { writeEveryMs: 0 });
      try {
        expect(apiEngine.networkHealth('31337').state).toBe('unknown');

        // Act: the anchoring process (elsewhere) looks at its registrar.
        share(notReady(new Date()));

        // Assert
        await eventually(() => {
          expect(() => {
            apiEngine.requireReady('31337');
          }).toThrow(DomainError);
        });
        expect(apiEngine.networkHealth('31337')).toMatchObject({
          state: 'notReady',
          balanceWei: '0',
        });

        share({
          networkId: '31337',
          state: 'ready',
          balanceWei: '10',
          requiredWei: '1',
          checkedAt: new Date(),
        });
        await eventually(() => {
          expect(apiEngine.networkHealth('31337').state).toBe('ready');
        });
        apiEngine.requireReady('31337');
      } finally {
        await watch.stop();
        await apiEngine.stop();
      }
    });

    it('when no anchoring process has looked for a minute, then the record is no news: unknown, which counts as ready', async () => {
      database = await openTestDatabase(backend);
      const apiEngine = new AnchorEngine(database.knex, new NetworkRegistry([network]), {
        anchoring: false,
      });
      await recordNetworkHealth(database.knex, notReady(new Date(Date.now() - 61_000)));

      const watch = watchNetworkHealth(database.knex, apiEngine, ['31337'], { intervalMs: 20 });
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));

        expect(apiEngine.networkHealth('31337').state).toBe('unknown');
        apiEngine.requireReady('31337');
        expect(await readNetworkHealth(database.knex)).toMatchObject([{ state: 'notReady' }]);
      } finally {
        await watch.stop();
        await apiEngine.stop();
      }
    });
  },
);
