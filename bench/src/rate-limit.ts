// What counting the rate limit in PostgreSQL costs a request, against counting it in process
// memory: one API shell (createApiApp) with a route that answers at once (GET /networks), loaded with autocannon
// from the same process, each store in turn, twice. Run: DATABASE_URL=... npm run bench:rate-limit
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { createDatabase } from '@trustpoint/db';
import { createApiApp, networksRouter, type BearerTokens } from '@trustpoint/http';
import pino from 'pino';

interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: object) => Promise<AutocannonResult>;

const SECONDS = Number(process.env.BENCH_SECONDS ?? '8');
const CONNECTIONS = Number(process.env.BENCH_CLIENTS ?? '50');
const noTokens = {} as BearerTokens;

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('bench:rate-limit needs DATABASE_URL (a PostgreSQL server)');
  const database = await createDatabase({ url, applicationName: 'trustpoint-bench' });
  // GET /networks of an empty list: the shell's work (rate limit included) and little else.
  const router = networksRouter(() => []);
  const appWith = (shared: boolean) =>
    createApiApp({
      basePath: '/api',
      docs: { document: { openapi: '3.1.0', info: { title: 'bench', version: '1' }, paths: {} } },
      routers: [router],
      logger: pino({ level: 'warn' }),
      tokens: noTokens,
      requestsPerMinute: 1_000_000_000,
      rateLimitDatabase: shared ? database.knex : undefined,
    });
  console.log(
    `Rate limit counts: process memory against PostgreSQL (one upsert per event-loop turn); ${String(CONNECTIONS)} connections, ${String(SECONDS)} s each, anonymous callers counted by address`,
  );
  console.log(
    `load average  ${loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')}`,
  );
  for (const round of [1, 2]) {
    for (const shared of [false, true]) {
      const server = appWith(shared).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const result = await autocannon({
        url: `http://127.0.0.1:${String(port)}/api/networks`,
        connections: CONNECTIONS,
        duration: SECONDS,
      });
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
      console.log(
        `round ${String(round)}  ${(shared ? 'PostgreSQL' : 'memory').padEnd(10)}  ${result.requests.average.toFixed(0)} requests/s, p99 ${String(result.latency.p99)} ms, non-2xx ${String(result.non2xx)}`,
      );
    }
  }
  await database.close();
}

void main();
