import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanRegistries } from '@trustpoint/chain';
import { freePort } from '@trustpoint/contracts';
import { createDatabase, createUser, savePlan } from '@trustpoint/db';
import { startEmbeddedChain } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import { loadOrCreateSecrets, mintLocalToken } from '@trustpoint/launcher/local-identity';
import { evidenceKey, trustPointKey } from '@trustpoint/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from './support/cli-fixture.js';
import { trustpointProcess, untilRunning, type RoleProcess } from './support/role-process.js';

const serverUrl = process.env.DATABASE_URL;

describe('trustpoint serve <role> refusals', () => {
  it('when a role other than all has no DATABASE_URL, then it refuses in one line with exit 2', async () => {
    const role = trustpointProcess(['serve', 'track'], { DATABASE_URL: '' });

    expect(await role.exited).toBe(2);
    expect(role.output()).toMatch(/^error: trustpoint serve track needs DATABASE_URL/);
  });

  it.each([
    ['serve cert', 'RATE_LIMIT_PER_MINUTE', 'abc'],
    ['serve cert', 'TRUST_PROXY', 'banana'],
    ['serve cert', 'MAX_FILE_BYTES', '-5'],
    ['serve cert', 'CERT_API_PORT', '99999'],
    ['serve cert', 'MIGRATE_AT_START', 'maybe'],
    ['serve cert', 'OIDC_ISSUERS', '[{bad'],
    ['serve cert', 'TRUSTPOINT_PUBLIC_URL', 'notaurl'],
    ['serve cert', 'TRUSTPOINT_DNS_SERVERS', 'dns.google'],
    ['serve cert', 'TRUSTPOINT_PIN_KEY', 'notbase64'],
    ['serve cert', 'CORS_ORIGINS', 'not an origin'],
    ['serve anchor', 'LOG_LEVEL', 'loud'],
    ['serve all', 'SHUTDOWN_TIMEOUT_SECONDS', 'ten'],
    ['start', 'TRACK_API_PORT', 'abc'],
    ['start', 'LOG_LEVEL', 'loud'],
  ])(
    'when trustpoint %s has %s=%j, then it refuses in one line naming the variable with exit 2',
    async (command, name, value) => {
      // Arrange: a data directory of its own, should anything start anyway.
      const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-bad-setting-'));

      // Act
      const started = trustpointProcess(command.split(' '), {
        [name]: value,
        TRUSTPOINT_DATA_DIR: dataDir,
        DATABASE_URL: 'postgres://127.0.0.1:1/unused',
      });

      // Assert
      expect(await started.exited).toBe(2);
      expect(started.output()).toMatch(new RegExp(`^error: ${name}\\b[^\\n]*\\n$`));
      await rm(dataDir, { recursive: true, force: true });
    },
  );

  it('when the service fails for another reason than its configuration, then it exits 1 with the stack', async () => {
    // Arrange: a data directory that is a file, so nothing (its lock, the chain's folder) can be
    // made in it.
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-not-a-dir-'));
    const file = join(dataDir, 'file');
    await writeFile(file, '');

    // Act
    const started = trustpointProcess(['serve', 'all'], { TRUSTPOINT_DATA_DIR: file });

    // Assert
    expect(await started.exited).toBe(1);
    expect(started.output()).toMatch(/(EEXIST|ENOTDIR)[^\n]*\n\s+at /);
    await rm(dataDir, { recursive: true, force: true });
  });
});

interface Deployment {
  env: NodeJS.ProcessEnv;
  chainUrl: string;
  registry: string;
  repository: string;
  token: string;
  stop(): Promise<void>;
}

/** Raw JSON-RPC, as anyone reading the chain would. */
async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

/**
 * How many times the chain holds each record, read as anyone would (events, and the code of data
 * batches, which name a record by its key's top 126 bits): exactly once means 1 for each.
 */
async function recordCountsByPrefix(deployment: Deployment): Promise<Map<bigint, number>> {
  const toBlock = Number(await rpc(deployment.chainUrl, 'eth_blockNumber', []));
  const records = await scanRegistries({
    rpcUrl: deployment.chainUrl,
    contracts: [deployment.registry, deployment.repository],
    fromBlock: 0,
    toBlock,
  });
  const counts = new Map<bigint, number>();
  for (const record of records) {
    counts.set(record.keyPrefix, (counts.get(record.keyPrefix) ?? 0) + 1);
  }
  return counts;
}

describe.skipIf(!serverUrl)(
  'trustpoint serve <role> on one PostgreSQL (skipped unless DATABASE_URL is set)',
  () => {
    let deployment: Deployment;
    const started: RoleProcess[] = [];

    const startRole = async (role: string, env: NodeJS.ProcessEnv = {}) => {
      // Each anchoring process serves its health and metrics on a port of its own.
      const health = role === 'anchor' ? { HEALTH_PORT: String(await freePort()) } : {};
      const process = trustpointProcess(['serve', role], {
        ...deployment.env,
        ...health,
        ...env,
      });
      started.push(process);
      await untilRunning(process);
      return process;
    };

    beforeAll(async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-roles-'));
      const database = await freshPostgresDatabase();
      const chainPort = await freePort();
      const config = { ...readLauncherConfig({}), dataDir, chainPort, chainHost: '127.0.0.1' };
      const chain = await startEmbeddedChain(config, join(dataDir, 'deployments.json'));
      const env = {
        TRUSTPOINT_DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        CHAIN_HOST: '127.0.0.1',
        CHAIN_PORT: String(chainPort),
        RATE_LIMIT_PER_MINUTE: '1000000',
      };
      // Migrations as their own step, three runs at once: they take turns, none fails.
      const migrations = [1, 2, 3].map(() => trustpointProcess(['migrate', '--json'], env));
      const codes = await Promise.all(migrations.map((run) => run.exited));
      expect(codes, migrations.map((run) => run.output()).join('\n')).toEqual([0, 0, 0]);
      const applied = migrations.map(
        (run) => (JSON.parse(run.output()) as { applied: string[] }).applied.length,
      );
      expect(applied.filter((count) => count > 0)).toHaveLength(1);

      const db = await createDatabase({ url: database.url, migrate: false, poolMax: 1 });
      await savePlan(db.knex, { id: 'roles', name: 'Roles', networkIds: ['31337'] });
      await createUser(db.knex, {
        id: 'acme',
        displayName: 'ACME',
        planId: 'roles',
        initialCredits: 10_000,
      });
      await db.close();
      const secrets = await loadOrCreateSecrets(join(dataDir, 'secrets.json'));
      deployment = {
        env,
        chainUrl: chain.url,
        registry: chain.deployment.trustPointRegistry,
        repository: chain.deployment.evidenceRepository,
        token: await mintLocalToken(secrets.jwtSecret, 'acme'),
        stop: async () => {
          await chain.stop();
          await database.drop();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    }, 180_000);

    afterAll(async () => {
      for (const process of started) process.child.kill('SIGKILL');
      await Promise.all(started.map((process) => process.exited));
      await deployment.stop();
    });

    it('when 2 certificate APIs, 2 track APIs and 2 anchorers share it and an anchorer is SIGKILLed midway, then every acknowledged record is on chain exactly once, and SIGTERM stops every role with exit 0', async () => {
      // Arrange
      const ports = await Promise.all([1, 2, 3, 4].map(() => freePort()));
      const [anchorA, anchorB] = [await startRole('anchor'), await startRole('anchor')];
      const apis = await Promise.all([
        startRole('cert', { CERT_API_PORT: String(ports[0]) }),
        startRole('cert', { CERT_API_PORT: String(ports[1]) }),
        startRole('track', { TRACK_API_PORT: String(ports[2]) }),
        startRole('track', { TRACK_API_PORT: String(ports[3]) }),
      ]);
      const certApis = [ports[0], ports[1]].map(
        (port) => `http://127.0.0.1:${String(port)}/cert/v2`,
      );
      const trackApis = [ports[2], ports[3]].map(
        (port) => `http://127.0.0.1:${String(port)}/track/v2`,
      );
      const headers = {
        Authorization: `Bearer ${deployment.token}`,
        'Content-Type': 'application/json',
      };
      const post = async (url: string, body: unknown) => {
        const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
        return {
          status: response.status,
          body: (await response.json()) as { data: Record<string, unknown> },
        };
      };

      // Act: certificates and assets with evidences through both instances of each API at once;
      // one anchorer is killed once a third of the certificates are acknowledged.
      const certificates: { certID: string; timestamp: number }[] = [];
      const evidences: { trackID: string; timestamp: number }[] = [];
      let killed = false;
      const certify = async (i: number) => {
        const { status, body } = await post(
          `${certApis[i % 2]}/certificates?type=content&networkId=31337`,
          {
            name: `c${String(i)}`,
            description: '',
            content: { i },
          },
        );
        if (status === 201) {
          const metadata = body.data.metadata as { timestamp: number }[];
          certificates.push({
            certID: String(body.data.certID),
            timestamp: metadata[0]?.timestamp ?? 0,
          });
        }
        if (!killed && certificates.length >= 40) {
          killed = true;
          anchorA.child.kill('SIGKILL');
        }
        return status;
      };
      const track = async (i: number) => {
        const created = await post(`${trackApis[i % 2]}/assets`, {
          assetId: `pallet-${String(i)}`,
          data: { i },
          networkId: 31337,
        });
        const statuses = [created.status];
        if (created.status !== 201) return statuses;
        const trackID = String(created.body.data.trackID);
        const first = (created.body.data.transactions as { timestamp: number }[])[0];
        evidences.push({ trackID, timestamp: first?.timestamp ?? 0 });
        for (let step = 0; step < 2; step += 1) {
          const added = await post(
            `${trackApis[(i + step + 1) % 2]}/assets/${trackID}/transactions`,
            {
              metadata: { step },
            },
          );
          statuses.push(added.status);
          if (added.status === 201)
            evidences.push({ trackID, timestamp: Number(added.body.data.timestamp) });
        }
        return statuses;
      };
      const statuses = (
        await Promise.all([
          ...Array.from({ length: 120 }, (_, i) => certify(i)),
          ...Array.from({ length: 30 }, (_, i) => track(i)),
        ])
      ).flat();

      // Assert: everything acknowledged (201), despite the kill.
      expect(killed).toBe(true);
      expect(await anchorA.exited).toBeNull();
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
      expect(certificates).toHaveLength(120);
      expect(evidences).toHaveLength(90);

      // On chain: each acknowledged record's key registered exactly once, and nothing twice.
      const assetHashes = new Map<string, string>();
      for (const { trackID } of evidences) {
        if (assetHashes.has(trackID)) continue;
        const response = await fetch(`${trackApis[0]}/assets/${trackID}`, { headers });
        assetHashes.set(
          trackID,
          ((await response.json()) as { data: { assetHash: string } }).data.assetHash,
        );
      }
      const counts = await recordCountsByPrefix(deployment);
      const keys = [
        ...certificates.map((c) => trustPointKey(c.certID, c.timestamp)),
        ...evidences.map((e) => evidenceKey(assetHashes.get(e.trackID) ?? '', e.timestamp)),
      ].map((key) => BigInt(key) >> 130n);
      expect(new Set(keys).size).toBe(210);
      expect(keys.filter((key) => counts.get(key) !== 1)).toEqual([]);
      expect([...counts.values()].filter((count) => count !== 1)).toEqual([]);

      // Graceful stop of every role still running.
      for (const role of [anchorB, ...apis]) role.child.kill('SIGTERM');
      expect(await Promise.all([anchorB, ...apis].map((role) => role.exited))).toEqual([
        0, 0, 0, 0, 0,
      ]);
    }, 240_000);

    it('when SIGTERM reaches a certificate API while a request waits for its anchoring, then the request is answered 201, new connections are refused, and the process exits 0', async () => {
      // Arrange: the only anchorer paused, so the request stays in flight.
      const port = await freePort();
      const anchor = await startRole('anchor');
      const cert = await startRole('cert', {
        CERT_API_PORT: String(port),
        SHUTDOWN_TIMEOUT_SECONDS: '20',
      });
      const url = `http://127.0.0.1:${String(port)}/cert/v2/certificates?type=content&networkId=31337`;
      anchor.child.kill('SIGSTOP');
      const inFlight = fetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${deployment.token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ name: 'in flight', description: '', content: { at: Date.now() } }),
      });
      // In flight once its certificate is stored (it then waits for the paused anchorer).
      const db = await createDatabase({
        url: String(deployment.env.DATABASE_URL),
        migrate: false,
        poolMax: 1,
      });
      try {
        const stored = async () =>
          Number(
            (await db.knex('certificates').where({ name: 'in flight' }).count({ count: '*' }))[0]
              ?.count ?? 0,
          );
        for (const deadline = Date.now() + 30_000; (await stored()) === 0;) {
          if (Date.now() > deadline) throw new Error('the request was not stored in 30 s');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await db.close();
      }

      // Act: SIGTERM, then new connections are refused once the listener has closed.
      cert.child.kill('SIGTERM');
      let refused = 'answered';
      for (const deadline = Date.now() + 15_000; refused === 'answered' && Date.now() < deadline;) {
        refused = await fetch(url, { method: 'POST' }).then(
          () => 'answered',
          () => 'refused',
        );
        if (refused === 'answered') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      anchor.child.kill('SIGCONT');

      // Assert
      expect((await inFlight).status).toBe(201);
      expect(refused).toBe('refused');
      expect(await cert.exited).toBe(0);
      anchor.child.kill('SIGTERM');
      expect(await anchor.exited).toBe(0);
    }, 120_000);
  },
);
