import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from './support/cli-fixture.js';
import { trustpointProcess, untilRunning, type RoleProcess } from './support/role-process.js';

interface Answer {
  status: number;
  body: {
    data?: { certID?: string; trackID?: string; id?: string; key?: string; secret?: string };
  };
}

// A creation killed mid-flight: the service SIGKILLs itself once the creation has committed and
// before its answer is stored or sent (TRUSTPOINT_TEST_KILL_AFTER_COMMIT, the crash point), then
// comes back; the client's retry with the same Idempotency-Key gets what was made, not a second.
describe.each(testBackends())('an Idempotency-Key retried after kill -9 on %s', (backend) => {
  let env: NodeJS.ProcessEnv;
  let certApi: string;
  let trackApi: string;
  let dataDir: string;
  let dropDatabase: (() => Promise<void>) | undefined;
  let running: RoleProcess | undefined;

  /** `trustpoint serve all` (chain, database, both APIs, anchoring) on the same data directory. */
  const serve = async (extra: NodeJS.ProcessEnv = {}) => {
    running = trustpointProcess(['serve', 'all'], { ...env, ...extra });
    await untilRunning(running);
    return running;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-idempotency-crash-'));
    const database = backend === 'postgres' ? await freshPostgresDatabase() : undefined;
    dropDatabase = database === undefined ? undefined : () => database.drop();
    const [certPort, trackPort] = [await freePort(), await freePort()];
    env = {
      TRUSTPOINT_DATA_DIR: dataDir,
      DATABASE_URL: database?.url ?? '',
      CERT_API_PORT: String(certPort),
      TRACK_API_PORT: String(trackPort),
      CHAIN_PORT: String(await freePort()),
      HEALTH_PORT: String(await freePort()),
      // A dead process's key is taken over a second after its last renewal.
      IDEMPOTENCY_KEY_LEASE_SECONDS: '1',
      // Webhook endpoints on this host.
      URL_FETCH_ALLOW: '127.0.0.1',
    };
    certApi = `http://127.0.0.1:${String(certPort)}/cert/v2`;
    trackApi = `http://127.0.0.1:${String(trackPort)}/track/v2`;
  }, 60_000);

  afterAll(async () => {
    running?.child.kill('SIGKILL');
    await running?.exited;
    await dropDatabase?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The local user's token, which the service leaves in its data directory. */
  const readLocalToken = async (directory: string) =>
    (await readFile(join(directory, 'local-token'), 'utf8')).trim();

  const post = async (url: string, key: string, body: object): Promise<Answer> => {
    const token = await readLocalToken(dataDir);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };
  const get = async (url: string, token?: string) => {
    const bearer = token ?? (await readLocalToken(dataDir));
    const response = await fetch(url, { headers: { Authorization: `Bearer ${bearer}` } });
    return {
      status: response.status,
      ...((await response.json()) as {
        data: {
          certificates?: { certID: string }[];
          assets?: { trackID: string; assetId: string }[];
          apiKeys?: { id: string; name: string }[];
          endpoints?: { id: string }[];
        };
      }),
    };
  };

  it('when the service dies after committing a certificate and then an asset, before answering, then each retry gets the one made', async () => {
    // Arrange: the service dies in the middle of each creation, the certificate's then the asset's
    const certKey = randomUUID();
    const certificate = { name: 'Crash', description: '', content: { n: randomUUID() } };
    const assetKey = randomUUID();
    const asset = {
      assetId: `pallet-${randomUUID()}`,
      data: { id: 'p', version: '1' },
      networkId: 31337,
    };
    const crashes = [
      () => post(`${certApi}/certificates?type=content&networkId=31337`, certKey, certificate),
      () => post(`${trackApi}/assets`, assetKey, asset),
    ];
    for (const create of crashes) {
      const service = await serve({ TRUSTPOINT_TEST_KILL_AFTER_COMMIT: '1' });
      await expect(create()).rejects.toThrow();
      expect(await service.exited).toBeNull();
      expect(service.child.signalCode).toBe('SIGKILL');
    }

    // Act: back up, the clients retry
    await serve();
    const certificateRetry = await post(
      `${certApi}/certificates?type=content&networkId=31337`,
      certKey,
      certificate,
    );
    const assetRetry = await post(`${trackApi}/assets`, assetKey, asset);
    const replayed = await post(
      `${certApi}/certificates?type=content&networkId=31337`,
      certKey,
      certificate,
    );

    // Assert: one of each, the one the crashed request made
    const certificates = (await get(`${certApi}/certificates`)).data.certificates ?? [];
    const made = certificates.filter(
      (listed) => listed.certID === certificateRetry.body.data?.certID,
    );
    expect([201, 202]).toContain(certificateRetry.status);
    expect(made).toHaveLength(1);
    expect(certificates).toHaveLength(1);
    expect(replayed.body.data?.certID).toBe(certificateRetry.body.data?.certID);
    const assets = (await get(`${trackApi}/assets`)).data.assets ?? [];
    expect([201, 202]).toContain(assetRetry.status);
    expect(assets.filter((listed) => listed.assetId === asset.assetId)).toHaveLength(1);
    expect(assets[0]?.trackID).toBe(assetRetry.body.data?.trackID);
  }, 300_000);

  it('when the service dies after committing an API key and then a webhook endpoint, before answering, then the key nobody received is revoked and a working one made, and the endpoint is answered with its secret, the same on every replay', async () => {
    // Arrange: the service left running by the test before goes; each creation then kills it
    running?.child.kill('SIGKILL');
    await running?.exited;
    const keyKey = randomUUID();
    const keyName = `erp-${randomUUID()}`;
    const endpointKey = randomUUID();
    const endpoint = { url: 'http://127.0.0.1:9/hooks' };
    const crashes = [
      () => post(`${certApi}/api-keys`, keyKey, { name: keyName }),
      () => post(`${certApi}/webhooks/endpoints`, endpointKey, endpoint),
    ];
    for (const create of crashes) {
      const service = await serve({ TRUSTPOINT_TEST_KILL_AFTER_COMMIT: '1' });
      await expect(create()).rejects.toThrow();
      expect(await service.exited).toBeNull();
      expect(service.child.signalCode).toBe('SIGKILL');
    }

    // Act: back up, the clients retry, then retry again
    await serve();
    const keyRetry = await post(`${certApi}/api-keys`, keyKey, { name: keyName });
    const keyReplay = await post(`${certApi}/api-keys`, keyKey, { name: keyName });
    const endpointRetry = await post(`${certApi}/webhooks/endpoints`, endpointKey, endpoint);
    const endpointReplay = await post(`${certApi}/webhooks/endpoints`, endpointKey, endpoint);

    // Assert: one active key of that name, the retry's, which works; the crashed one is revoked
    expect(keyRetry.status).toBe(201);
    expect(keyReplay.body).toEqual(keyRetry.body);
    const activeKeys = (await get(`${certApi}/api-keys`)).data.apiKeys ?? [];
    const named = activeKeys.filter((listed) => listed.name === keyName);
    expect(named.map((listed) => listed.id)).toEqual([keyRetry.body.data?.id]);
    expect((await get(`${certApi}/certificates`, keyRetry.body.data?.key)).status).toBe(200);
    // One endpoint, answered with its signing secret again and again
    expect(endpointRetry.status).toBe(201);
    expect(endpointRetry.body.data?.secret).toMatch(/^whsec_/);
    expect(endpointReplay.body.data?.secret).toBe(endpointRetry.body.data?.secret);
    const endpoints = (await get(`${certApi}/webhooks/endpoints`)).data.endpoints ?? [];
    expect(endpoints.map((listed) => listed.id)).toEqual([endpointRetry.body.data?.id]);
  }, 300_000);
});
