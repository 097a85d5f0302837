import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { createApiApp } from '../src/api-app.js';
import { authenticate } from '../src/authenticate.js';
import { currentUser } from '../src/current-user.js';
import { DatabaseRateLimitStore } from '../src/database-rate-limit-store.js';
import type { TrustProxy } from '../src/trust-proxy.js';
import { capturedLogger } from './support/captured-logger.js';
import { testAccessTokens, testUser } from './support/fake-users.js';
import { signToken } from './support/tokens.js';

const document = { openapi: '3.1.0', info: { title: 'Test API', version: '1.0.0' }, paths: {} };
const LIMIT = 3;

/** One API process: its own app, counting in `database` when given (in memory otherwise). */
function apiProcess(
  options: {
    database?: TestDatabase;
    trustProxy?: TrustProxy;
    logger?: ReturnType<typeof capturedLogger>['logger'];
  } = {},
) {
  const router = express.Router();
  router.get('/ping', (req, res) => res.status(200).json({ ip: req.ip }));
  return createApiApp({
    basePath: '/api/v1',
    docs: { document },
    routers: [router],
    logger: options.logger ?? pino({ level: 'silent' }),
    tokens: testAccessTokens(),
    requestsPerMinute: LIMIT,
    rateLimitDatabase: options.database?.knex,
    // Inside one minute of the epoch, whenever the test runs: on the wall clock, requests on both
    // sides of a minute's end are counted in two windows.
    rateLimitClock: () => 1_800_000_030_000,
    trustProxy: options.trustProxy,
  });
}

describe.each(testBackends())(
  'Rate limit counted in the database (%s)',
  { timeout: 60_000 },
  (backend) => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.close();
      database = undefined;
    });

    it('when two API processes share one database, then together they allow the limit once, not twice', async () => {
      // Arrange
      database = await openTestDatabase(backend);
      const first = apiProcess({ database });
      const second = apiProcess({ database });

      // Act: alternate between the two processes, one anonymous caller.
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i += 1) {
        statuses.push((await request(i % 2 === 0 ? first : second).get('/api/v1/ping')).status);
      }

      // Assert
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    });

    it('when counted in process memory instead, then each process allows the limit on its own', async () => {
      const first = apiProcess();
      const second = apiProcess();

      const statuses: number[] = [];
      for (let i = 0; i < LIMIT * 2; i += 1) {
        statuses.push((await request(i % 2 === 0 ? first : second).get('/api/v1/ping')).status);
      }

      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    });

    it('when the window ends, then the count starts again; resetKey and decrement change the count', async () => {
      database = await openTestDatabase(backend);
      let now = 1_800_000_000_000;
      const store = new DatabaseRateLimitStore(database.knex, 'test', { now: () => now });
      store.init({ windowMs: 60_000 } as Parameters<DatabaseRateLimitStore['init']>[0]);

      await store.increment('ip:10.0.0.1');
      const second = await store.increment('ip:10.0.0.1');
      await store.decrement('ip:10.0.0.1');
      const afterDecrement = await store.get('ip:10.0.0.1');
      now += 60_000;
      const nextWindow = await store.increment('ip:10.0.0.1');
      await store.resetKey('ip:10.0.0.1');

      // The window ends 60 s after the store's clock, said on the wall clock (Retry-After's).
      const leftMs = (info: { resetTime?: Date } | undefined) =>
        (info?.resetTime?.getTime() ?? 0) - Date.now();
      expect(second.totalHits).toBe(2);
      expect(leftMs(second)).toBeGreaterThan(50_000);
      expect(leftMs(second)).toBeLessThanOrEqual(60_000);
      expect(afterDecrement?.totalHits).toBe(1);
      expect(nextWindow.totalHits).toBe(1);
      expect(leftMs(nextWindow)).toBeGreaterThan(50_000);
      expect(leftMs(nextWindow)).toBeLessThanOrEqual(60_000);
      expect(await store.get('ip:10.0.0.1')).toBeUndefined();
    });
  },
);

describe.each(testBackends())(
  'DatabaseRateLimitStore counting together (%s)',
  { timeout: 60_000 },
  (backend) => {
    it('when requests of several keys arrive at once in two processes, then each gets its own place and the totals add up', async () => {
      const database = await openTestDatabase(backend);
      try {
        const stores = [1, 2].map(() => {
          const store = new DatabaseRateLimitStore(database.knex, 'test', {
            now: () => 1_800_000_000_000,
          });
          store.init({ windowMs: 60_000 } as Parameters<DatabaseRateLimitStore['init']>[0]);
          return store;
        });
        const [first, second] = stores as [DatabaseRateLimitStore, DatabaseRateLimitStore];

        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) => {
            return (i % 2 === 0 ? first : second).increment(i % 3 === 0 ? 'user:a' : 'user:b');
          }),
        );

        const hitsOf = (keyOf: (i: number) => boolean) =>
          answers
            .filter((_, i) => keyOf(i))
            .map((answer) => answer.totalHits)
            .sort((x, y) => x - y);
        expect(hitsOf((i) => i % 3 === 0)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
        expect(hitsOf((i) => i % 3 !== 0)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      } finally {
        await database.close();
      }
    });
  },
);

describe('TRUST_PROXY behind a load balancer', () => {
  it('when the balancer is trusted, then clients are counted and logged by X-Forwarded-For, not by the balancer', async () => {
    // Arrange: supertest connects from loopback, as a balancer on the same host would.
    const captured = capturedLogger('info');
    const app = apiProcess({ trustProxy: ['loopback'], logger: captured.logger });
    for (let i = 0; i < LIMIT; i += 1) {
      await request(app).get('/api/v1/ping').set('X-Forwarded-For', '203.0.113.7');
    }

    // Act
    const limited = await request(app).get('/api/v1/ping').set('X-Forwarded-For', '203.0.113.7');
    const other = await request(app).get('/api/v1/ping').set('X-Forwarded-For', '198.51.100.9');

    // Assert
    expect(limited.status).toBe(429);
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ ip: '198.51.100.9' });
    const lines = captured.entries().filter((entry) => entry.msg === 'request completed');
    expect(lines.at(-1)).toMatchObject({ clientAddress: '198.51.100.9' });
  });

  it('when no proxy is trusted (the default), then X-Forwarded-For is ignored: a client cannot pose as another', async () => {
    const app = apiProcess();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i += 1) {
      const forged = `203.0.113.${String(i)}`;
      const response = await request(app).get('/api/v1/ping').set('X-Forwarded-For', forged);
      statuses.push(response.status);
    }

    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe.each(testBackends())(
  'The caller looked up beside the rate limit (%s)',
  { timeout: 60_000 },
  (backend) => {
    it("when an authenticated request comes, then its caller's lookup starts before the limit's count is answered, and runs once", async () => {
      // Arrange: the order in which the count went out, the caller was looked up and the count came back.
      const database = await openTestDatabase(backend);
      try {
        const events: string[] = [];
        database.knex.on('query', (query: { sql: string }) => {
          if (query.sql.includes('rate_limit_counts')) events.push('count sent');
        });
        database.knex.on('query-response', (_rows: unknown, query: { sql: string }) => {
          if (query.sql.includes('rate_limit_counts')) events.push('count answered');
        });
        const alice = testUser('alice');
        const auth = {
          tokens: testAccessTokens(),
          findUser: (id: string) => {
            events.push(`looked up ${id}`);
            return Promise.resolve(id === alice.id ? alice : undefined);
          },
        };
        const router = express.Router();
        router.get('/me', authenticate(auth), (_req, res) => {
          res.status(200).json({ id: currentUser(res).id });
        });
        const app = createApiApp({
          basePath: '/api/v1',
          docs: { document },
          routers: [router],
          logger: pino({ level: 'silent' }),
          tokens: auth.tokens,
          findUser: auth.findUser,
          requestsPerMinute: LIMIT,
          rateLimitDatabase: database.knex,
          rateLimitClock: () => 1_800_000_030_000,
        });

        // Act
        const response = await request(app)
          .get('/api/v1/me')
          .set('Authorization', `Bearer ${await signToken('alice')}`);

        // Assert
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ id: 'alice' });
        expect(events.filter((event) => event.startsWith('looked up'))).toEqual([
          'looked up alice',
        ]);
        expect(events.indexOf('looked up alice')).toBeLessThan(events.indexOf('count answered'));
      } finally {
        await database.close();
      }
    });
  },
);
