import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { freshPostgresDatabase } from '@trustpoint/test-database';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { launch } from '../src/launcher.js';
import { startEmbeddedChain } from '../src/launcher.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });

// Roles need PostgreSQL; they run only where DATABASE_URL names a server (as in CI).
describe.skipIf(!process.env.DATABASE_URL)('health and metrics of the roles', () => {
  it('when serve anchor and serve cert run, then the anchoring process answers /healthz, /readyz and /metrics on HEALTH_PORT, and the API at its root, its metrics labelled by role', async () => {
    // Arrange
    // A database of its own: a new chain must not meet old nonces.
    const database = await freshPostgresDatabase('trustpoint_role_obs');
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-role-obs-'));
    const healthPort = await freePort();
    const config = await testLaunchConfig(dataDir, { databaseUrl: database.url, healthPort });
    const chain = await startEmbeddedChain(config, join(dataDir, 'deployments.json'));
    const anchor = await launch('anchor', config, silent);
    const cert = await launch('cert', config, silent);
    try {
      // Act
      const health = await fetch(`http://127.0.0.1:${String(healthPort)}/healthz`);
      const ready = await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`);
      const metrics = await (await fetch(`http://127.0.0.1:${String(healthPort)}/metrics`)).text();
      const apiReady = await fetch(`${new URL(cert.url ?? '').origin}/readyz`);
      const apiMetrics = await (await fetch(`${new URL(cert.url ?? '').origin}/metrics`)).text();

      // Assert
      expect(health.status).toBe(200);
      expect(ready.status).toBe(200);
      expect(
        ((await ready.json()) as { checks: { name: string }[] }).checks.map((c) => c.name),
      ).toEqual([
        'database',
        'migrations',
        'network:31337:node',
        'network:31337:registrar',
        'network:31337:registries',
      ]);
      expect(metrics).toMatch(
        /trustpoint_registrar_balance_ether\{network="31337",role="anchor"\} \d/,
      );
      expect(apiReady.status).toBe(200);
      expect(apiMetrics).toContain('role="cert"');
    } finally {
      await cert.stop();
      await anchor.stop();
      await chain.stop();
      await database.drop();
    }
  }, 120_000);
});
