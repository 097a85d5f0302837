import { createDatabase } from '@trustpoint/db';
import { closedPort } from '@trustpoint/test-doubles/closed-port';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { isDatabaseUnavailable } from '../src/database-unavailable.js';
import { testApp } from './support/test-app.js';

const UNAVAILABLE_BODY = {
  statusCode: 503,
  type: 'Service Unavailable Error',
  message: 'The service is temporarily unavailable, please try again later',
};

describe('isDatabaseUnavailable', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    [
      'a server starting up (57P03)',
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    ],
    [
      'an administrator shutdown (57P01)',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ],
    [
      'a connection exception (08006)',
      Object.assign(new Error('connection failure'), { code: '08006' }),
    ],
    ['a connection cut under a query', new Error('select 1 - Connection terminated unexpectedly')],
    [
      'a statement written to a connection the server closed (EPIPE)',
      Object.assign(new Error('insert into "rate_limit_counts" ... - write EPIPE'), {
        code: 'EPIPE',
      }),
    ],
    [
      'a database host that cannot be reached (EHOSTUNREACH)',
      Object.assign(new Error('connect EHOSTUNREACH 10.0.0.9:5432'), { code: 'EHOSTUNREACH' }),
    ],
    [
      'a database host name that does not resolve for now (EAI_AGAIN)',
      Object.assign(new Error('getaddrinfo EAI_AGAIN db'), { code: 'EAI_AGAIN' }),
    ],
    [
      'a database host name gone from DNS (ENOTFOUND)',
      Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }),
    ],
    [
      'no pooled connection in time',
      new Error('Knex: Timeout acquiring a connection. The pool is probably full.'),
    ],
  ])('when the error is %s, then it is the database being unavailable', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a deadlock (40P01)', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
    ['a programming error', new TypeError('x is undefined')],
    ['a thrown string', 'ECONNREFUSED'],
  ])('when the error is %s, then it is not', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('errorHandler when the database cannot be reached', () => {
  it.each([
    [
      'the PostgreSQL server refuses connections',
      async () => `postgres://postgres@127.0.0.1:${String(await closedPort())}/trustpoint`,
    ],
    [
      // `.invalid` never resolves (RFC 2606); offline, the lookup fails for now instead.
      'the database host name does not resolve',
      () => Promise.resolve('postgres://postgres@trustpoint-database.invalid:5432/trustpoint'),
    ],
  ])(
    'when %s, then 503 with the catalogue body and Retry-After instead of 500',
    async (_what, url) => {
      // Arrange
      const database = await createDatabase({ url: await url(), migrate: false, poolMax: 1 });
      const app = testApp((routes) => {
        routes.get('/read', async (_req, res) => {
          res.json(await database.knex.raw('select 1'));
        });
      });

      // Act
      const response = await request(app).get('/read');
      await database.close();

      // Assert
      expect(response.status).toBe(503);
      expect(response.body).toEqual(UNAVAILABLE_BODY);
      expect(response.headers['retry-after']).toBe('5');
    },
  );

  it.skipIf(!process.env.DATABASE_URL)(
    'when the server ends the connection under a request (57P01), then 503; other database errors stay 500 (needs DATABASE_URL)',
    async () => {
      // Arrange
      const database = await createDatabase({
        url: process.env.DATABASE_URL ?? '',
        migrate: false,
        poolMax: 1,
      });
      const app = testApp((routes) => {
        routes.get('/terminated', async (_req, res) => {
          res.json(await database.knex.raw('select pg_terminate_backend(pg_backend_pid())'));
        });
        routes.get('/broken', async (_req, res) => {
          res.json(await database.knex.raw('select * from no_such_table_here'));
        });
      });

      // Act
      const terminated = await request(app).get('/terminated');
      // The pool may hand out the ended connection once more before it notices: wait until a
      // fresh one answers, so that /broken meets a live server and only its own error.
      for (let attempt = 0; ; attempt++) {
        try {
          await database.knex.raw('select 1');
          break;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const broken = await request(app).get('/broken');
      await database.close();

      // Assert
      expect(terminated.status).toBe(503);
      expect(terminated.body).toEqual(UNAVAILABLE_BODY);
      expect(broken.status).toBe(500);
    },
  );
});
