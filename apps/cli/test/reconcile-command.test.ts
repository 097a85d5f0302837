import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chainWriterProvider,
  encodeRecordBatch,
  freePort,
  HARDHAT_DEV_KEY,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { JsonRpcProvider, NonceManager, Wallet, id as keccakOfText } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import {
  localTrustFile,
  startService,
  trustpoint,
  type RunningService,
} from './support/cli-fixture.js';

/** Hardhat's account #1: writes on chain beside the service, as someone holding a registrar role. */
const OTHER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const REGISTRAR_ROLE = keccakOfText('REGISTRAR_ROLE');
/** Far ahead, so that a slot record's time bucket is never one the service's data batches closed. */
const FAR_FUTURE_MS = 4_102_444_800_000;

const randomHex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

interface Reconciliation {
  network: string;
  since: string | null;
  counts: Record<
    'checked' | 'agree' | 'pending' | 'missing' | 'mismatched' | 'doubled' | 'orphaned',
    number
  >;
  problems: {
    kind: string;
    network: string;
    recordKind: string;
    recordKey: string;
    expectedHash: string | null;
    chainHash: string | null;
    contract: string | null;
    transactionHash: string | null;
  }[];
}

interface AnchorRow {
  id: number;
  record_key: string;
  hash: string;
  trustpoint_type: number | null;
  batch_id: number;
}

describe.each(testBackends())('trustpoint reconcile against a running service on %s', (backend) => {
  let service: RunningService;
  let provider: JsonRpcProvider;
  let other: NonceManager;
  let chainUrl: string;
  /** The records acknowledged by the first test, all anchored by its end. */
  let acknowledged = 0;

  const reconcile = (args: string[]) =>
    trustpoint(['reconcile', '--url', service.url, '--rpc', `31337=${chainUrl}`, ...args], {
      TRUSTPOINT_TOKEN: service.running.token,
    });
  const api = async (path: string, init: RequestInit, base = service.running.certApiUrl) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${service.running.token}`);
    headers.set('Content-Type', 'application/json');
    const response = await fetch(`${base}${path}`, { ...init, headers });
    const body = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return { status: response.status, data: body.data };
  };
  const certify = (prefer?: string) =>
    api('/certificates?type=content&networkId=31337', {
      method: 'POST',
      ...(prefer === undefined ? {} : { headers: { Prefer: prefer } }),
      body: JSON.stringify({ name: 'Order', description: '', content: { order: randomUUID() } }),
    });
  const trackEvidence = async () => {
    const { data: asset } = await api(
      '/assets',
      {
        method: 'POST',
        body: JSON.stringify({
          assetId: `pallet-${randomUUID()}`,
          data: { id: 'P' },
          networkId: 31337,
        }),
      },
      service.running.trackApiUrl,
    );
    await api(
      `/assets/${encodeURIComponent(String(asset.trackID))}/transactions`,
      { method: 'POST', body: JSON.stringify({ metadata: { parcel: randomUUID() } }) },
      service.running.trackApiUrl,
    );
  };
  const anchored = (kind: 'trustpoint' | 'evidence') =>
    service.running.database
      .knex('anchor_records')
      .where({ kind, status: 'anchored' })
      .orderBy('id')
      .select<AnchorRow[]>('id', 'record_key', 'hash', 'trustpoint_type', 'batch_id');
  const deployment = () => {
    const deployed = service.running.embeddedChain?.deployment;
    if (deployed === undefined) throw new Error('the service has no embedded chain');
    return deployed;
  };
  /** A trustpoint written straight into a registry of either generation, beside the service. */
  const writeTrustPoint = async (registry: string, key: string, hash: string) => {
    const isBatchRegistry = (await provider.getCode(registry)).includes(
      TrustPointBatchRegistry__factory.createInterface()
        .getFunction('batchCount')
        .selector.slice(2),
    );
    const receipt = isBatchRegistry
      ? await (
          await TrustPointBatchRegistry__factory.connect(registry, other).registerTrustPoint(
            key,
            hash,
            0,
            FAR_FUTURE_MS,
          )
        ).wait()
      : await (
          await TrustPointRegistry__factory.connect(registry, other).registerTrustPoint(
            key,
            hash,
            0,
          )
        ).wait();
    return receipt?.hash;
  };

  beforeAll(async () => {
    service = await startService(backend);
    chainUrl = service.running.embeddedChain?.url ?? '';
    // A second registrar, granted and writing as an operator would: through the chain's write key.
    provider = chainWriterProvider(chainUrl, service.running.embeddedChain?.writeHeaders ?? {});
    // Before the service sends anything: its registrar key reads its nonce from the chain later.
    const admin = new Wallet(HARDHAT_DEV_KEY, provider);
    other = new NonceManager(new Wallet(OTHER_KEY, provider));
    const otherAddress = await other.getAddress();
    const { trustPointRegistry, evidenceRepository } = deployment();
    const grant = async (address: string) =>
      (
        await TrustPointRegistry__factory.connect(address, admin).grantRole(
          REGISTRAR_ROLE,
          otherAddress,
        )
      ).wait();
    await grant(trustPointRegistry);
    await grant(evidenceRepository);
  }, 120_000);

  afterAll(async () => {
    provider.destroy();
    await service.stop();
  });

  it('when certificates and evidences were acknowledged, one of them 202 and still on its way, then --wait lets it land and everything agrees (exit 0)', async () => {
    // Arrange
    await certify();
    await certify();
    await trackEvidence();
    const accepted = await certify('respond-async');

    // Act
    const result = await reconcile(['--wait', '60', '--json']);

    // Assert
    expect(accepted.status).toBe(202);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT.ok);
    const [network, ...others] = JSON.parse(result.stdout) as Reconciliation[];
    expect(others).toEqual([]);
    expect(network).toMatchObject({ network: '31337', since: null, problems: [] });
    acknowledged = Number(
      (
        await service.running.database
          .knex('anchor_records')
          .where('status', 'anchored')
          .count<{ count: number }[]>('* as count')
      )[0]?.count,
    );
    // Three certificates of one trustpoint each, an asset and its evidence.
    expect(acknowledged).toBeGreaterThanOrEqual(5);
    expect(network?.counts).toEqual({
      checked: acknowledged,
      agree: acknowledged,
      pending: 0,
      missing: 0,
      mismatched: 0,
      doubled: 0,
      orphaned: 0,
    });
  });

  it('when one network is named, then its result is one object, and a network the service lacks is refused (exit 2)', async () => {
    // Act
    const named = await reconcile(['--network', '31337', '--json']);
    const unknown = await reconcile(['--network', '11155111']);

    // Assert
    expect(named.code).toBe(EXIT.ok);
    expect(JSON.parse(named.stdout)).toMatchObject({
      network: '31337',
      counts: { agree: acknowledged },
    });
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('network 11155111 is not configured on the service');
  });

  it('when no node is given, then the node pinned with this service in the trust file is read (its own chain, on the port it runs), not the default local chain', async () => {
    // Arrange: the instance's chain runs on a free port, not the default 8545.
    const trustFile = await localTrustFile(service);
    const withoutPin = await localTrustFile(service, { withNodes: false });

    // Act
    const pinned = await trustpoint(['reconcile', '--url', service.url, '--json'], {
      TRUSTPOINT_TOKEN: service.running.token,
      TRUSTPOINT_TRUST_FILE: trustFile,
    });
    const unpinned = await trustpoint(['reconcile', '--url', service.url, '--json'], {
      TRUSTPOINT_TOKEN: service.running.token,
      TRUSTPOINT_TRUST_FILE: withoutPin,
    });

    // Assert
    expect(chainUrl).not.toContain(':8545');
    expect(pinned.code).toBe(EXIT.ok);
    expect(JSON.parse(pinned.stdout)).toMatchObject([
      { network: '31337', counts: { agree: acknowledged } },
    ]);
    // Without the pin only the default local chain is left to ask: never this instance's.
    expect(unpinned.code).not.toBe(EXIT.ok);
  });

  it("when no node is given nor pinned, then the roles' local chain at CHAIN_HOST:CHAIN_PORT is read; where no node answers there, the error names the URL tried and --rpc", async () => {
    // Arrange: the roles' environment names the chain's port; another port has no node.
    const chainPort = new URL(chainUrl).port;
    const silentPort = String(await freePort());
    const reconcileWith = (env: NodeJS.ProcessEnv) =>
      trustpoint(['reconcile', '--url', service.url, '--json'], {
        TRUSTPOINT_TOKEN: service.running.token,
        CHAIN_HOST: '127.0.0.1',
        ...env,
      });

    // Act
    const roles = await reconcileWith({ CHAIN_PORT: chainPort });
    const silent = await reconcileWith({ CHAIN_PORT: silentPort });

    // Assert
    expect(chainUrl).not.toContain(':8545');
    expect(roles.code).toBe(EXIT.ok);
    expect(JSON.parse(roles.stdout)).toMatchObject([
      { network: '31337', counts: { agree: acknowledged } },
    ]);
    expect(silent.code).toBe(EXIT.unchecked);
    expect(silent.stderr).toContain(
      `cannot read network 31337's chain from http://127.0.0.1:${silentPort} (the local chain, CHAIN_HOST:CHAIN_PORT)`,
    );
    expect(silent.stderr).toContain('pass --rpc 31337=<url> to read another node');
  });

  it("when the service's networks file is in TRUSTPOINT_NETWORKS_FILE, then its nodes are read without --networks, and a file that cannot be read is named by that variable (exit 2)", async () => {
    // Arrange: the roles' local chain has no node; only the networks file names this one's.
    const directory = await mkdtemp(join(tmpdir(), 'trustpoint-reconcile-'));
    await writeFile(
      join(directory, 'networks.json'),
      JSON.stringify({ networks: [{ networkId: 31337, rpcUrl: chainUrl }] }),
    );
    const silentPort = String(await freePort());
    const reconcileWith = (env: NodeJS.ProcessEnv) =>
      trustpoint(['reconcile', '--url', service.url, '--json'], {
        TRUSTPOINT_TOKEN: service.running.token,
        CHAIN_HOST: '127.0.0.1',
        CHAIN_PORT: silentPort,
        INIT_CWD: directory,
        ...env,
      });

    // Act
    const fromFile = await reconcileWith({ TRUSTPOINT_NETWORKS_FILE: 'networks.json' });
    const missing = await reconcileWith({ TRUSTPOINT_NETWORKS_FILE: 'no-such-networks.json' });
    await rm(directory, { recursive: true, force: true });

    // Assert
    expect(fromFile.stderr).toBe('');
    expect(fromFile.code).toBe(EXIT.ok);
    expect(JSON.parse(fromFile.stdout)).toMatchObject([
      { network: '31337', counts: { agree: acknowledged } },
    ]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('TRUSTPOINT_NETWORKS_FILE no-such-networks.json: ');
  });

  it('when a row was never sent, the registrar wrote another hash under the key of a row, a row holds another hash, the chain holds a record with no row and a record sits in two data batches, then each is reported and the exit code is 11', async () => {
    // Arrange
    const knex = service.running.database.knex;
    const [trustpoint] = await anchored('trustpoint');
    const [evidence] = await anchored('evidence');
    if (trustpoint === undefined || evidence === undefined) throw new Error('nothing anchored');
    // A row the database says was anchored in a batch, whose record was never sent.
    const neverSent = randomHex(32);
    await knex('anchor_records').insert({
      network_id: '31337',
      kind: 'trustpoint',
      record_key: neverSent,
      hash: randomHex(32).slice(2),
      trustpoint_type: 0,
      status: 'anchored',
      batch_id: trustpoint.batch_id,
    });
    // A record the registrar role wrote under a row's key with another hash.
    const contestedKey = randomHex(32);
    const rowHash = randomHex(32).slice(2);
    const writtenHash = randomHex(32);
    await knex('anchor_records').insert({
      network_id: '31337',
      kind: 'trustpoint',
      record_key: contestedKey,
      hash: rowHash,
      trustpoint_type: 0,
      status: 'anchored',
      batch_id: trustpoint.batch_id,
    });
    await writeTrustPoint(deployment().trustPointRegistry, contestedKey, writtenHash);
    // A row whose hash is not the one on chain.
    const changedHash = randomHex(32).slice(2);
    await knex('anchor_records').where('id', evidence.id).update({ hash: changedHash });
    // A record written into the service's registry by the registrar role, with no row.
    const orphanKey = randomHex(32);
    const orphanHash = randomHex(32);
    const orphanTransaction = await writeTrustPoint(
      deployment().trustPointRegistry,
      orphanKey,
      orphanHash,
    );
    // The service's first trustpoint again, twice, in the data batches of a registry of before.
    const older = await new TrustPointBatchRegistry__factory(other).deploy(
      await other.getAddress(),
      await other.getAddress(),
    );
    const olderAddress = (await older.getAddress()).toLowerCase();
    const record = {
      key: trustpoint.record_key,
      hash: `0x${trustpoint.hash}`,
      type: trustpoint.trustpoint_type ?? 0,
      timestamp: FAR_FUTURE_MS,
    };
    const companions = [randomHex(32), randomHex(32)];
    for (const companion of companions) {
      const batch = encodeRecordBatch(
        [record, { key: companion, hash: randomHex(32), timestamp: FAR_FUTURE_MS + 1 }],
        TRUSTPOINT_BUCKET_BITS,
      );
      await (await older.registerTrustPointBatch(batch.records, batch.buckets)).wait();
    }

    // Act
    const result = await reconcile(['--contract', `31337=${olderAddress}`, '--json']);
    const text = await reconcile(['--contract', `31337=${olderAddress}`]);

    // Assert
    expect(result.code).toBe(EXIT.disagreement);
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: expect.stringContaining('disagree on network(s) 31337'),
    });
    const [network] = JSON.parse(result.stdout) as Reconciliation[];
    expect(network?.counts).toEqual({
      checked: acknowledged + 2,
      agree: acknowledged - 2,
      pending: 0,
      missing: 1,
      mismatched: 2,
      doubled: 1,
      orphaned: 3,
    });
    const problems = network?.problems ?? [];
    expect(problems).toContainEqual(
      expect.objectContaining({
        kind: 'missing',
        network: '31337',
        recordKind: 'trustpoint',
        recordKey: neverSent,
        chainHash: null,
      }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({
        kind: 'mismatched',
        recordKind: 'evidence',
        recordKey: evidence.record_key,
        expectedHash: changedHash,
        chainHash: evidence.hash,
        contract: deployment().evidenceRepository.toLowerCase(),
      }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({
        kind: 'mismatched',
        recordKind: 'trustpoint',
        recordKey: contestedKey,
        expectedHash: rowHash,
        chainHash: writtenHash.slice(2),
        contract: deployment().trustPointRegistry.toLowerCase(),
      }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({
        kind: 'orphaned',
        recordKey: orphanKey,
        expectedHash: null,
        chainHash: orphanHash.slice(2),
        contract: deployment().trustPointRegistry.toLowerCase(),
        transactionHash: orphanTransaction,
      }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({
        kind: 'doubled',
        recordKey: trustpoint.record_key,
        expectedHash: trustpoint.hash,
        chainHash: trustpoint.hash,
        contract: olderAddress,
      }),
    );
    // The companions of the data batches are known by their tags only.
    const orphanTags = problems
      .filter((problem) => problem.kind === 'orphaned' && problem.contract === olderAddress)
      .map((problem) => problem.recordKey);
    expect(orphanTags.sort()).toEqual(
      companions
        .map((key) => `0x${((BigInt(key) >> 130n) << 2n).toString(16).padStart(32, '0')}`)
        .sort(),
    );
    expect(text.code).toBe(EXIT.disagreement);
    expect(text.stdout).toContain('DISAGREE');
    expect(text.stdout).toMatch(/missing\s*│?\s*trustpoint/);
    expect(text.stderr).toContain('the database and the chain disagree');
  });

  it('when asked --since a time after the earlier records, then only the records created and mined since are compared', async () => {
    // Arrange: after the latest block, whose time may run ahead of the clock on a busy chain.
    const latest = await provider.getBlock('latest');
    const since = new Date(Math.max(Date.now(), ((latest?.timestamp ?? 0) + 1) * 1_000));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, since.getTime() - Date.now())));
    await certify();

    // Act
    const result = await reconcile([
      '--network',
      '31337',
      '--since',
      since.toISOString(),
      '--json',
    ]);

    // Assert
    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toMatchObject({
      network: '31337',
      since: since.toISOString(),
      counts: { checked: 1, agree: 1, missing: 0, mismatched: 0, doubled: 0, orphaned: 0 },
    });
  });

  it("when the token is a customer's, not an admin's, then the admin API refuses it and so does the command (exit 3)", async () => {
    // Arrange
    const customer = `customer-${randomUUID().slice(0, 8)}`;
    const created = await trustpoint(
      [
        'admin',
        'users',
        'create',
        customer,
        '--name',
        'Customer',
        '--plan',
        'local',
        '--url',
        service.url,
      ],
      { TRUSTPOINT_TOKEN: service.running.token },
    );
    const userToken = await service.running.mintToken(customer);

    // Act
    const result = await trustpoint(
      ['reconcile', '--url', service.url, '--rpc', `31337=${chainUrl}`, '--json'],
      { TRUSTPOINT_TOKEN: userToken },
    );

    // Assert
    expect(created.code).toBe(EXIT.ok);
    expect(result.code).toBe(EXIT.unauthorized);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({
      body: { statusCode: 403, type: 'Forbidden Error' },
    });
  });

  it('when --since is no time, then it is refused (exit 2)', async () => {
    // Act
    const result = await reconcile(['--since', 'yesterday']);

    // Assert
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('--since takes an ISO 8601 time');
  });
});
