import { AnchorEngine, NetworkRegistry, type NetworkConfig } from '@trustpoint/chain';
import { HARDHAT_DEV_KEY, freePort, type LocalChain } from '@trustpoint/contracts';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/db/testing';
import { computeAddress } from 'ethers';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trickleRequest } from '@trustpoint/http/testing';
import {
  serviceObservability,
  startHealthServer,
  type ServiceObservability,
} from '../src/index.js';
import { rpc, startTestChain } from './support.js';

interface ReadyzBody {
  status: string;
  failed?: string[];
  checks: { name: string; ok: boolean; detail?: string }[];
}

function appOf(observability: ServiceObservability) {
  const app = express();
  app.use(observability.router);
  return app;
}

describe.each(testBackends())('readiness (%s)', (backend) => {
  let chain: LocalChain;
  let network: NetworkConfig;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain());
  }, 60_000);
  afterAll(async () => {
    await chain.stop();
  });

  describe('when everything is up', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(backend);
    });
    afterAll(async () => {
      await database.close();
    });

    it('then /healthz and /readyz answer 200 and name every check, with no secret', async () => {
      const app = appOf(serviceObservability({ knex: database.knex, networks: [network] }));
      await request(app).get('/healthz').expect(200, { status: 'ok' });
      const response = await request(app).get('/readyz').expect(200);
      const body = response.body as ReadyzBody;
      expect(body.status).toBe('ready');
      expect(body.checks.map((check) => check.name)).toEqual([
        'database',
        'migrations',
        'network:31337:node',
        'network:31337:registrar',
      ]);
      expect(body.checks.every((check) => check.ok)).toBe(true);
      expect(response.text).not.toContain(HARDHAT_DEV_KEY.slice(2));
      expect(response.text).not.toContain(network.rpcUrl);
    });
  });

  describe('when the database is down (its pool closed)', () => {
    it('then /readyz answers 503 naming database and migrations, and /healthz stays 200', async () => {
      const database = await openTestDatabase(backend);
      const app = appOf(serviceObservability({ knex: database.knex, networks: [network] }));
      await database.close();
      const response = await request(app).get('/readyz').expect(503);
      const body = response.body as ReadyzBody;
      expect(body.status).toBe('not ready');
      expect(body.failed).toEqual(['database', 'migrations']);
      await request(app).get('/healthz').expect(200);
    });
  });

  describe('when migrations are not applied', () => {
    it('then /readyz answers 503 naming migrations and telling to run trustpoint migrate', async () => {
      const database = await openTestDatabase(backend, { migrate: false });
      try {
        const app = appOf(serviceObservability({ knex: database.knex, networks: [] }));
        const body = (await request(app).get('/readyz').expect(503)).body as ReadyzBody;
        expect(body.failed).toEqual(['migrations']);
        expect(body.checks.find((check) => check.name === 'migrations')?.detail).toMatch(
          /trustpoint migrate/,
        );
      } finally {
        await database.close();
      }
    });
  });

  describe('when a network node does not answer', () => {
    it('then /readyz answers 503 naming that node (and its registrar), without the URL', async () => {
      const database = await openTestDatabase(backend);
      try {
        const down = { ...network, rpcUrl: `http://127.0.0.1:${String(await freePort())}` };
        const app = appOf(serviceObservability({ knex: database.knex, networks: [down] }));
        const response = await request(app).get('/readyz').expect(503);
        const body = response.body as ReadyzBody;
        expect(body.failed).toEqual(['network:31337:node', 'network:31337:registrar']);
        expect(body.checks[2]?.detail).toMatch(/^node unreachable: ECONNREFUSED/);
        expect(response.text).not.toContain(down.rpcUrl);
      } finally {
        await database.close();
      }
    });
  });

  describe('when the registrar holds nothing (hardhat_setBalance 0)', () => {
    it('then /readyz answers 503 naming the registrar check, and 200 again once funded', async () => {
      const database = await openTestDatabase(backend);
      const registrar = computeAddress(HARDHAT_DEV_KEY);
      const balance = await rpc(network.rpcUrl, 'eth_getBalance', [registrar, 'latest']);
      try {
        const engine = new AnchorEngine(database.knex, new NetworkRegistry([network]), {
          anchoring: false,
        });
        const app = appOf(
          serviceObservability({ knex: database.knex, networks: [network], engine }),
        );
        await rpc(network.rpcUrl, 'hardhat_setBalance', [registrar, '0x0']);
        const body = (await request(app).get('/readyz').expect(503)).body as ReadyzBody;
        expect(body.failed).toEqual(['network:31337:registrar']);
        expect(body.checks[3]?.detail).toMatch(/holds 0\.0, needs .* fund it/);
        await rpc(network.rpcUrl, 'hardhat_setBalance', [registrar, balance]);
        await request(app).get('/readyz').expect(200);
      } finally {
        await rpc(network.rpcUrl, 'hardhat_setBalance', [registrar, balance]);
        await database.close();
      }
    });
  });

  describe('startHealthServer (the anchoring process)', () => {
    it('when started on port 0, then it serves /healthz, /readyz and /metrics on its own port and 404 elsewhere', async () => {
      const database = await openTestDatabase(backend);
      const observability = serviceObservability({ knex: database.knex, networks: [network] });
      const server = await startHealthServer({
        port: 0,
        checks: observability.checks,
        registry: observability.registry,
      });
      try {
        const health = await fetch(`${server.url}/healthz`);
        expect(health.status).toBe(200);
        expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
        const metrics = await fetch(`${server.url}/metrics`);
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('trustpoint_db_pool_connections');
        expect((await fetch(`${server.url}/cert/v2/certificates`)).status).toBe(404);
      } finally {
        await server.close();
        await database.close();
      }
    });

    it('when a client trickles its headers, then it gets 408 at the headers timeout and others are served', async () => {
      // Arrange
      const server = await startHealthServer({
        port: 0,
        checks: [],
        timeouts: { headersTimeoutMs: 500, checkIntervalMs: 100 },
      });
      try {
        // Act
        const slow = trickleRequest(
          server.port,
          'GET /healthz HTTP/1.1\r\nHost: x\r\n'.padEnd(300, 'x'),
          {
            byteIntervalMs: 20,
            giveUpMs: 5_000,
          },
        );
        const health = await fetch(`${server.url}/healthz`);
        const result = await slow;

        // Assert
        expect(health.status).toBe(200);
        expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
        expect(result.closedAfterMs).toBeLessThan(2_000);
      } finally {
        await server.close();
      }
    });
  });
});
