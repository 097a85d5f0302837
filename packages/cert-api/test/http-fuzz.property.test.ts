import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { createUser, savePlan } from '@trustpoint/db';
import { createApiServer } from '@trustpoint/http';
import { callerStateDigest } from '@trustpoint/test-database';
import {
  fuzzSettingsFromEnv,
  operationsWithoutGenerator,
  runHttpFuzz,
  servedOperations,
  type FuzzedApi,
  type HttpFuzzTarget,
} from '@trustpoint/test-kit/fuzz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERT_API_BASE_PATH } from '../src/server.js';
import { startCertApi, tokenFor, type CertApiFixture } from './support/cert-api-fixture.js';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';
import { request } from './support/checked-request.js';

// One backend, not both: PostgreSQL where DATABASE_URL is set (CI), else PGlite.
const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';
// 5,000 cases on PostgreSQL (CI: 10,000 with the other API's), 1,000 on the slower PGlite.
const settings = fuzzSettingsFromEnv({
  seed: 20_261_123,
  runs: backend === 'postgres' ? 5_000 : 1_000,
});

describe(`HTTP fuzz of the certificate and admin APIs on ${backend}`, () => {
  let api: CertApiFixture;
  let server: Server;
  let target: HttpFuzzTarget;
  let dns: LocalDns;

  beforeAll(async () => {
    // URL certificates of the generated (unreachable) addresses fail fast.
    // Issuer domains are checked against a local DNS server holding no records.
    dns = await startLocalDns();
    api = await startCertApi(backend, {
      urlFetch: { connectTimeoutMs: 200, totalTimeoutMs: 500 },
      publicOrigin: 'https://certs.example.org',
      dnsServers: [dns.server],
    });
    // The server the launcher listens with: its answers to requests Node cannot parse count too.
    server = createApiServer(api.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    const main = await api.user({ credits: 1_000_000, qualified: true });
    const poor = await api.user({ credits: 0 });
    const adminId = `admin-${randomUUID()}`;
    await savePlan(api.db.knex, {
      id: `plan-${adminId}`,
      name: 'admin plan',
      networkIds: ['31337'],
    });
    await createUser(api.db.knex, {
      id: adminId,
      displayName: adminId,
      planId: `plan-${adminId}`,
      role: 'admin',
    });
    const admin = await tokenFor(adminId);

    const key = await request(api.app)
      .post(`${CERT_API_BASE_PATH}/api-keys`)
      .set('Authorization', `Bearer ${main.token}`)
      .send({ name: 'fuzz key' });
    const { id: keyId, key: keySecret } = key.body.data as { id: string; key: string };
    // Ids the generated paths and bodies use, so requests reach past the lookups; the endpoint
    // first, so the certificates' events are its.
    const endpoint = await request(api.app)
      .post(`${CERT_API_BASE_PATH}/webhooks/endpoints`)
      .set('Authorization', `Bearer ${main.token}`)
      .send({ url: 'http://127.0.0.1:9/hook' });
    const endpointId = String(endpoint.body.data.id);
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

    const userAuthorizations = [
      { weight: 14, value: `Bearer ${main.token}` },
      { weight: 1, value: `Bearer ${poor.token}` },
      { weight: 1, value: `Bearer ${keySecret}` },
      { weight: 1, value: `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}` },
      {
        weight: 1,
        value: `Bearer ${await tokenFor(main.id, 'another secret of 32 characters!!')}`,
      },
      { weight: 1, value: undefined },
    ];
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
    target = {
      port,
      apis,
      authorizations: userAuthorizations,
      known: {
        id: [
          ...certificates.flatMap((certificate) => [certificate.certID, certificate.data.hash]),
          'fuzz-1',
          endpointId,
          main.id,
          poor.id,
          `plan-${main.id}`,
        ],
        keyId: [keyId],
        eventId: events.map((event) => event.id),
        fileHash: [certificates[0]?.data.hash ?? ''],
        networkId: ['31337'],
        pin: ['1234'],
        externalId: ['fuzz-0'],
        planId: [`plan-${main.id}`],
        client_id: [keyId],
        client_secret: [keySecret],
        domain: ['fuzz.example'],
      },
      stateDigest: () => callerStateDigest(api.db.knex),
    };
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
    await dns.close();
  });

  it('when the served documents are read, then every documented operation has a generator', async () => {
    const { operations } = await servedOperations(target.port, target.apis);

    expect(operations.length).toBeGreaterThan(30);
    expect(operationsWithoutGenerator(operations, target.known)).toEqual([]);
  });

  it('when generated requests are sent, then none is dropped, answered 5xx, answered off the document or catalogue, or changes the state while refused', async () => {
    const outcome = await runHttpFuzz(target, settings, 'cert-api fuzz');

    console.log('cert-api fuzz answers by status:', Object.fromEntries(outcome.casesByStatus));
    if (settings.path === undefined && settings.runs >= 1_000) {
      const unreached = outcome.operations.filter(
        (operation) => !outcome.casesByOperation.has(operation.name),
      );
      expect(unreached.map((operation) => operation.name)).toEqual([]);
    }
  }, 900_000);
});
