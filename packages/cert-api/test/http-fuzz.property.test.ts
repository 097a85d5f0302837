import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { callerStateDigest } from '@trustpoint/test-database';
import { startLocalDns } from '@trustpoint/test-doubles/dns';
import { createApiKey, createTestUser, createWebhookEndpoint } from '@trustpoint/test-kit/fixtures';
import { fuzzSettingsFromEnv, type FuzzedApi } from '@trustpoint/test-kit/fuzz';
import { callerAuthorizations, describeHttpFuzz } from '@trustpoint/test-kit/suites';
import { CERT_API_BASE_PATH } from '../src/server.js';
import { startCertApi, tokenFor } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

// One backend, not both: PostgreSQL where DATABASE_URL is set (CI), else PGlite.
const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';
// 5,000 cases on PostgreSQL (CI: 10,000 with the other API's), 1,000 on the slower PGlite.
const settings = fuzzSettingsFromEnv({
  seed: 20_261_123,
  runs: backend === 'postgres' ? 5_000 : 1_000,
});

describeHttpFuzz({
  title: `HTTP fuzz of the certificate and admin APIs on ${backend}`,
  label: 'cert-api fuzz',
  settings,
  leastOperations: 30,
  async start() {
    // URL certificates of the generated (unreachable) addresses fail fast.
    // Issuer domains are checked against a local DNS server holding no records.
    const dns = await startLocalDns();
    const api = await startCertApi(backend, {
      urlFetch: { connectTimeoutMs: 200, totalTimeoutMs: 500 },
      publicOrigin: 'https://certs.example.org',
      dnsServers: [dns.server],
    });

    const main = await api.user({ credits: 1_000_000, qualified: true });
    const poor = await api.user({ credits: 0 });
    const admin = await tokenFor(await createTestUser(api.db.knex, { credits: 0, role: 'admin' }));

    // Ids the generated paths and bodies use, so requests reach past the lookups; the endpoint
    // first, so the certificates' events are its.
    const key = await createApiKey(request(api.app), CERT_API_BASE_PATH, main.token, {
      name: 'fuzz key',
    });
    const endpoint = await createWebhookEndpoint(request(api.app), CERT_API_BASE_PATH, main.token, {
      url: 'http://127.0.0.1:9/hook',
    });
    const certificates = await Promise.all(
      [0, 1, 2].map((n) =>
        api.certify(main.token, {
          externalId: `fuzz-${String(n)}`,
          public: n === 0,
          ...(n === 2 ? { certificatePin: '1234' } : {}),
        }),
      ),
    );
    const claim = await request(api.app)
      .post(`${CERT_API_BASE_PATH}/issuer-domains`)
      .set('Authorization', `Bearer ${main.token}`)
      .send({ domain: 'fuzz.example' });
    if (claim.status !== 201) throw new Error(`claim: ${String(claim.status)}`);
    const events = await api.db.knex('webhook_events').select<{ id: string }[]>('id').limit(3);

    const userAuthorizations = callerAuthorizations({
      main: main.token,
      poor: poor.token,
      key,
      forged: await tokenFor(main.id, 'another secret of 32 characters!!'),
    });
    const apis: FuzzedApi[] = [
      { basePath: CERT_API_BASE_PATH },
      {
        basePath: ADMIN_API_BASE_PATH,
        authorizations: [
          { weight: 12, value: `Bearer ${admin}` },
          ...userAuthorizations.slice(0, 1),
          { weight: 1, value: undefined },
        ],
      },
    ];
    return {
      app: api.app,
      target: {
        apis,
        authorizations: userAuthorizations,
        known: {
          id: [
            ...certificates.flatMap((certificate) => [certificate.certID, certificate.data.hash]),
            'fuzz-1',
            endpoint.id,
            main.id,
            poor.id,
            `plan-${main.id}`,
          ],
          keyId: [key.id],
          eventId: events.map((event) => event.id),
          fileHash: [certificates[0]?.data.hash ?? ''],
          networkId: ['31337'],
          pin: ['1234'],
          externalId: ['fuzz-0'],
          planId: [`plan-${main.id}`],
          client_id: [key.id],
          client_secret: [key.key],
          domain: ['fuzz.example'],
        },
        stateDigest: () => callerStateDigest(api.db.knex),
      },
      async stop() {
        await api.close();
        await dns.close();
      },
    };
  },
});
