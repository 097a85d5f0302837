// The database statements behind certificate creation through the API: every statement the
// service's connection pool sends while N content certificates are created by many clients,
// counted by shape (values and lists folded), with the count per request. A statement run once
// per request where others run once per group is the first thing to find in a profile.
// Run: npm run bench:statements   (DATABASE_URL for PostgreSQL; BENCH_PREFER=respond-async for 202s)
import { startBenchService } from './support/bench-service.js';
import { runHttpLoad } from './support/http-load.js';

const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? '3000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '500');
const USERS = Number(process.env.BENCH_USERS ?? '50');
const PREFER = process.env.BENCH_PREFER;

/** A statement with its values and lists of values folded, so that one shape counts once. */
function shapeOf(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\$\d+|\?/g, '?')
    .replace(/\(\?(, \?)*\)/g, '(…)')
    .replace(/(\(…\), )+/g, '')
    .slice(0, 120);
}

async function main(): Promise<void> {
  const service = await startBenchService('statements');
  try {
    const users = await service.users(USERS, 2 * CERTIFICATES);
    const url = `${service.running.certApiUrl}/certificates?type=content&networkId=31337`;
    const targets = users.map((user) => ({ url, token: user.token }));
    const load = (count: number) =>
      runHttpLoad({
        targets,
        body: 'content-certificate',
        count,
        clients: CLIENTS,
        threads: 1,
        ...(PREFER === undefined ? {} : { headers: { prefer: PREFER } }),
      });
    // Warm-up: users, plans and tokens read once, as in a running service.
    await load(Math.min(CLIENTS, CERTIFICATES));
    const counts = new Map<string, number>();
    const knex = service.running.database.knex;
    knex.on('query', (query: { sql: string }) => {
      const shape = shapeOf(query.sql);
      counts.set(shape, (counts.get(shape) ?? 0) + 1);
    });
    const outcome = await load(CERTIFICATES);
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    console.log(
      `Statements of the API's pool while ${String(CERTIFICATES)} content certificates are created (${service.backend}, ${String(CLIENTS)} clients, ${String(USERS)} users${PREFER === undefined ? '' : `, Prefer: ${PREFER}`})\n`,
    );
    console.log(
      `statuses    ${[...outcome.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`).join(', ')}`,
    );
    console.log(
      `statements  ${String(total)}, ${(total / CERTIFICATES).toFixed(2)} per request (the anchoring thread's own pool, on PostgreSQL, is not counted)\n`,
    );
    for (const [shape, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      console.log(`${String(count).padStart(7)} ${(count / CERTIFICATES).toFixed(3)}  ${shape}`);
    }
  } finally {
    await service.stop();
  }
}

void main();
