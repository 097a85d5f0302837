import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnchorEngine, NetworkRegistry, type NetworkConfig } from '@trustpoint/chain';
import { HARDHAT_DEV_KEY, freePort, type LocalChain } from '@trustpoint/contracts';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { computeAddress } from 'ethers';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trickleRequest } from '@trustpoint/test-doubles/slow-client';
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
        'network:31337:registries',
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
        expect(body.failed).toEqual([
          'network:31337:node',
          'network:31337:registrar',
          'network:31337:registries',
        ]);
        expect(body.checks[2]?.detail).toMatch(/^node unreachable: ECONNREFUSED/);
        expect(response.text).not.toContain(down.rpcUrl);
      } finally {
        await database.close();
      }
    });
  });

  describe('when a registry address holds no contract, or a URL is in a node error', () => {
    it('then /readyz answers 503 naming the registries check and the address, the URL never', async () => {
      const database = await openTestDatabase(backend);
      try {
        const typo = { ...network, evidenceRepository: `0x${'22'.repeat(20)}` };
        const app = appOf(serviceObservability({ knex: database.knex, networks: [typo] }));
        const response = await request(app).get('/readyz').expect(503);
        const body = response.body as ReadyzBody;
        expect(body.failed).toEqual(['network:31337:registries']);
        expect(body.checks[4]?.detail).toMatch(
          /^evidenceRepository 0x2{40} has no contract code on chain 31337/,
        );
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
        await rpc(network.rpcUrl, 'hardhat_setBalance', [registrar, '0x0'], network.rpcHeaders);
        const body = (await request(app).get('/readyz').expect(503)).body as ReadyzBody;
        expect(body.failed).toEqual(['network:31337:registrar']);
        expect(body.checks[3]?.detail).toMatch(/holds 0\.0, needs .* fund it/);
        await rpc(network.rpcUrl, 'hardhat_setBalance', [registrar, balance], network.rpcHeaders);
        // Once the answer of the unfunded registrar is older than /readyz keeps answers.
        await expect
          .poll(async () => (await request(app).get('/readyz')).status, { timeout: 5_000 })
          .toBe(200);
      } finally {
        await rpc(network.rpcUrl, 'hardhat_setBalance', [registrar, balance], network.rpcHeaders);
        await database.close();
      }
    });
  });

  describe('when /readyz is asked for at any rate', () => {
    it('then concurrent callers share one round of checks and answers within a second reuse it, so node calls and queries stay bounded', async () => {
      // Arrange: the node behind a proxy that counts its calls, and the queries counted.
      const database = await openTestDatabase(backend);
      let nodeCalls = 0;
      const proxy = createServer((req, res) => {
        nodeCalls += 1;
        req.pipe(
          httpRequest(network.rpcUrl, { method: 'POST', headers: req.headers }, (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          }),
        );
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const rpcUrl = `http://127.0.0.1:${String((proxy.address() as AddressInfo).port)}`;
      let queries = 0;
      const countQuery = () => {
        queries += 1;
      };
      database.knex.on('query', countQuery);
      try {
        const app = appOf(
          serviceObservability({ knex: database.knex, networks: [{ ...network, rpcUrl }] }),
        );
        await request(app).get('/readyz').expect(200);
        const perRound = { nodeCalls, queries };
        nodeCalls = 0;
        queries = 0;

        // Act: 50 at once, then 50 more one after another, all within the answer's second.
        const started = performance.now();
        const burst = await Promise.all(
          Array.from({ length: 50 }, () => request(app).get('/readyz')),
        );
        for (let n = 0; n < 50; n += 1) await request(app).get('/readyz').expect(200);
        const elapsedMs = performance.now() - started;
        const inWindow = { nodeCalls, queries };
        // Past the second: a new round.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        await request(app).get('/readyz').expect(200);

        // Assert
        expect(perRound.nodeCalls).toBeGreaterThan(0);
        expect(perRound.queries).toBeGreaterThan(0);
        expect(burst.every((response) => response.status === 200)).toBe(true);
        // At most one round per second went on (a round may have started as the first expired).
        const rounds = Math.ceil(elapsedMs / 1_000) + 1;
        expect(inWindow.nodeCalls).toBeLessThanOrEqual(rounds * perRound.nodeCalls);
        expect(inWindow.queries).toBeLessThanOrEqual(rounds * perRound.queries);
        expect(nodeCalls).toBeGreaterThan(inWindow.nodeCalls);
      } finally {
        database.knex.off('query', countQuery);
        await new Promise((resolve) => proxy.close(resolve));
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
        expect(result.closedAfterMs).toBeLessThan(4_000);
      } finally {
        await server.close();
      }
    });
  });
});
