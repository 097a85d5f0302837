// GET /certificates with a million certificates stored for one user: latency of the first page,
// of filtered pages, and of a time window, through the HTTP API (authentication included).
// Run: npm run bench:list   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { startBenchService } from './support/bench-service.js';
import { latencyHistogram, millis } from './support/latency.js';

const CERTIFICATES = Number(process.env.BENCH_LIST_CERTIFICATES ?? '1000000');
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? '500');
const FIRST_ISSUED_ON = 1_767_225_600_000;
/** One certificate a minute. */
const SPACING_MS = 60_000;

async function main(): Promise<void> {
  const service = await startBenchService('list');
  try {
    const [owner] = await service.users(1, 0);
    if (!owner) throw new Error('no benchmark user');
    const { knex } = service.running.database;

    const seeding = performance.now();
    // Straight into the tables (the API would take an hour): four types, a third public, each
    // with its Evidence trustpoint, the way the API stores them.
    const chunk = 100_000;
    for (let start = 0; start < CERTIFICATES; start += chunk) {
      const end = Math.min(CERTIFICATES, start + chunk) - 1;
      await knex.raw(
        `insert into certificates
           (id, cert_id, user_id, type, name, description, content, hash, issued_on, public, network_id)
         select id, 'did:trustpoint:certid:' || id, ?, (array['content','file','asset','url'])[1 + i % 4],
                'Certificate ' || i, 'Seeded for the list benchmark', jsonb_build_object('n', i),
                md5(i::text) || md5((i + 1)::text), ? + i::bigint * ?, i % 3 = 0, '31337'
         from (select gen_random_uuid() as id, i from generate_series(?::int, ?::int) as i) as seeded`,
        [owner.id, FIRST_ISSUED_ON, SPACING_MS, start, end],
      );
    }
    await knex.raw(
      `insert into trustpoints (certificate_id, type, hash, timestamp, network_id)
       select id, 0, hash, issued_on, network_id from certificates where user_id = ?`,
      [owner.id],
    );
    if (service.backend === 'postgres') await knex.raw('vacuum analyze certificates, trustpoints');
    const seeded = (performance.now() - seeding) / 1_000;

    const lastIssuedOn = FIRST_ISSUED_ON + (CERTIFICATES - 1) * SPACING_MS;
    const day = 24 * 60 * 60 * 1_000;
    const scenarios: [string, string][] = [
      ['first page (20, newest first)', ''],
      ['first page of 100', 'limit=100'],
      ['oldest first', 'order=asc'],
      ['type=file', 'type=file'],
      ['access=public', 'access=public'],
      ['type=url&access=private', 'type=url&access=private'],
      ['last day (from/to)', `from=${String(lastIssuedOn - day)}&to=${String(lastIssuedOn)}`],
      ['page 50 (offset 1,000)', 'offset=1000'],
      ['fields=certID,data.hash', 'fields=certID,data.hash'],
    ];
    console.log(
      `GET /certificates with ${CERTIFICATES.toLocaleString('en')} certificates of one user, ${service.backend} database (seeded in ${seeded.toFixed(0)} s); ${String(REQUESTS)} sequential requests each\n`,
    );
    console.log(
      `${'page'.padEnd(32)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}  total`,
    );
    for (const [name, query] of scenarios) {
      const url = `${service.running.certApiUrl}/certificates?${query}`;
      const headers = { authorization: `Bearer ${owner.token}` };
      const latencies = latencyHistogram();
      let total = 0;
      for (let i = 0; i < REQUESTS + 20; i += 1) {
        const sent = performance.now();
        const response = await fetch(url, { headers });
        const body = (await response.json()) as { data?: { pagination?: { total: number } } };
        if (response.status !== 200) {
          throw new Error(`${name}: ${String(response.status)} ${JSON.stringify(body)}`);
        }
        // The first requests warm connections and caches.
        if (i >= 20) latencies.recordValue(Math.round((performance.now() - sent) * 1_000));
        total = body.data?.pagination?.total ?? -1;
      }
      console.log(
        `${name.padEnd(32)} ${millis(latencies, 50).padStart(8)} ${millis(latencies, 99).padStart(8)} ${millis(latencies, 100).padStart(8)}  ${total.toLocaleString('en')}`,
      );
    }
    console.log('\ngoal: p99 <= 20 ms for the first page and for filtered pages');
  } finally {
    await service.stop();
  }
}

void main();
