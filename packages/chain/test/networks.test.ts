import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HARDHAT_DEV_KEY, recordDeployment, type LocalChain } from '@trustpoint/contracts';
import { DomainError } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNetworks, NetworkConfigError } from '../src/networks/load-networks.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { networkFor, startTestChain } from './support/test-chain.js';

const ADDRESSES = {
  trustPointRegistry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  evidenceRepository: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
};

async function files(networks?: unknown) {
  const dir = await mkdtemp(join(tmpdir(), 'trustpoint-networks-'));
  const deploymentsFile = join(dir, 'deployments.json');
  await recordDeployment(deploymentsFile, {
    chainId: '31337',
    ...ADDRESSES,
    admin: ADDRESSES.trustPointRegistry,
    registrar: ADDRESSES.trustPointRegistry,
    blockNumber: 2,
    deployedAt: new Date(0).toISOString(),
  });
  const networksFile = join(dir, 'networks.json');
  if (networks !== undefined) await writeFile(networksFile, JSON.stringify(networks));
  return { deploymentsFile, networksFile: networks === undefined ? undefined : networksFile };
}

describe('Network configuration', () => {
  it('when nothing is configured, then the embedded chain is the one network, with the deployed addresses', async () => {
    const { deploymentsFile } = await files();

    const networks = await loadNetworks({ deploymentsFile, env: {} });

    expect(networks).toHaveLength(1);
    expect(networks[0]).toMatchObject({
      networkId: '31337',
      rpcUrl: 'http://127.0.0.1:8545',
      ...ADDRESSES,
    });
    expect(networks[0]?.signerKey).toBe(HARDHAT_DEV_KEY);
  });

  it('when the embedded chain listens elsewhere, then the embedded network points there', async () => {
    const { deploymentsFile } = await files();

    const [network] = await loadNetworks({
      deploymentsFile,
      env: {},
      embeddedRpcUrl: 'http://127.0.0.1:9545',
    });

    expect(network?.rpcUrl).toBe('http://127.0.0.1:9545');
  });

  it('when a remote network names its key variable, then the key comes from the environment', async () => {
    const key = `0x${'11'.repeat(32)}`;
    const paths = await files({
      networks: [
        {
          networkId: '11155111',
          rpcUrl: 'https://rpc.example.org',
          chainId: 11155111,
          ...ADDRESSES,
          signerKeyEnv: 'SEPOLIA_KEY',
        },
      ],
    });

    const [network] = await loadNetworks({ ...paths, env: { SEPOLIA_KEY: key } });

    expect(network?.signerKey).toBe(key);
    // No maxSize: the anchorer sizes batches for the registries it finds (511 or 250).
    expect(network?.batch).toEqual({ maxWaitMs: 50 });
  });

  it('when a network names its queue limit, then it is kept; otherwise what its blocks take in one anchor timeout; a limit under 2 stops start-up', async () => {
    const key = `0x${'11'.repeat(32)}`;
    const entry = {
      rpcUrl: 'https://rpc.example.org',
      ...ADDRESSES,
      signerKeyEnv: 'SEPOLIA_KEY',
    };
    const paths = await files({
      networks: [
        // 12 s blocks of 15 M gas, 2 confirmations: 113.6 records/s for 108 s.
        {
          ...entry,
          networkId: '1',
          chainId: 1,
          confirmations: 2,
          blockTimeMs: 12_000,
          blockGasLimit: 15_000_000,
        },
        { ...entry, networkId: '2', chainId: 2, maxQueuedRecords: 500 },
        { ...entry, networkId: '3', chainId: 3 },
      ],
    });

    const networks = await loadNetworks({ ...paths, env: { SEPOLIA_KEY: key } });

    expect(networks.map((network) => network.queue?.maxQueuedRecords)).toEqual([
      12_272, 500, 81_818,
    ]);
    const wrong = await files({
      networks: [{ ...entry, networkId: '4', chainId: 4, maxQueuedRecords: 1 }],
    });
    await expect(loadNetworks({ ...wrong, env: { SEPOLIA_KEY: key } })).rejects.toThrow(
      /maxQueuedRecords/,
    );
  });

  it('when a network states how requests are acknowledged, then it is kept; otherwise synchronous, with a wait sized from its blocks', async () => {
    const key = `0x${'11'.repeat(32)}`;
    const entry = {
      rpcUrl: 'https://rpc.example.org',
      ...ADDRESSES,
      signerKeyEnv: 'SEPOLIA_KEY',
    };
    const paths = await files({
      networks: [
        { ...entry, networkId: '1', chainId: 1, confirmations: 2, blockTimeMs: 12_000 },
        { ...entry, networkId: '2', chainId: 2, acknowledgement: 'async', anchorTimeoutMs: 5_000 },
        { ...entry, networkId: '3', chainId: 3 },
      ],
    });

    const networks = await loadNetworks({ ...paths, env: { SEPOLIA_KEY: key } });

    expect(
      networks.map(({ acknowledgement, anchorTimeoutMs }) => ({
        acknowledgement,
        anchorTimeoutMs,
      })),
    ).toEqual([
      // Three times what two confirmations take at 12 s blocks: 3 x 3 blocks x 12 s.
      { acknowledgement: 'sync', anchorTimeoutMs: 108_000 },
      { acknowledgement: 'async', anchorTimeoutMs: 5_000 },
      { acknowledgement: 'sync', anchorTimeoutMs: 30_000 },
    ]);
    const wrong = await files({
      networks: [{ ...entry, networkId: '4', chainId: 4, acknowledgement: 'later' }],
    });
    await expect(loadNetworks({ ...wrong, env: { SEPOLIA_KEY: key } })).rejects.toThrow(
      NetworkConfigError,
    );
  });

  it('when a remote network has no key, then loading stops naming the variable', async () => {
    const paths = await files({
      networks: [
        {
          networkId: '1',
          rpcUrl: 'https://rpc.example.org',
          chainId: 1,
          ...ADDRESSES,
          signerKeyEnv: 'MAINNET_KEY',
        },
      ],
    });

    await expect(loadNetworks({ ...paths, env: {} })).rejects.toThrow(/MAINNET_KEY/);
  });

  it('when a network has no addresses anywhere, then loading stops and says to deploy', async () => {
    const paths = await files({
      networks: [{ networkId: '5', rpcUrl: 'https://rpc.example.org', chainId: 5 }],
    });

    await expect(loadNetworks({ ...paths, env: {} })).rejects.toThrow(/deploy the contracts first/);
  });

  it('when the networks file is malformed, then loading stops with the file and the problem', async () => {
    const paths = await files({ networks: [{ networkId: '5', rpcUrl: 'not a url', chainId: -1 }] });

    const error = await loadNetworks({ ...paths, env: {} }).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(NetworkConfigError);
    expect((error as Error).message).toMatch(/networks\.json/);
    expect((error as Error).message).toMatch(/rpcUrl/);
  });

  it('when an rpcUrl carries credentials (user:key@), then loading stops saying where the key goes, and the key is not quoted', async () => {
    const paths = await files({
      networks: [
        {
          networkId: '80002',
          rpcUrl: 'https://apikey:S3CRET-KEY@polygon-amoy.example.org/v3/abc',
          chainId: 80002,
          ...ADDRESSES,
        },
      ],
    });

    const error = await loadNetworks({ ...paths, env: {} }).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(NetworkConfigError);
    expect((error as Error).message).toMatch(/must not carry credentials.*rpcUrl/s);
    expect((error as Error).message).not.toContain('S3CRET-KEY');
  });

  it('when a networkId is not a decimal number, then loading stops: clients could never name it', async () => {
    const paths = await files({
      networks: [
        { networkId: 'devnet', rpcUrl: 'https://rpc.example.org', chainId: 5, ...ADDRESSES },
      ],
    });

    await expect(loadNetworks({ ...paths, env: {} })).rejects.toThrow(/networkId/);
  });

  it('when a networkId is configured twice, then loading stops', async () => {
    const entry = { networkId: '31337', rpcUrl: 'http://127.0.0.1:8545', chainId: 31337 };
    const paths = await files({ networks: [entry, entry] });

    await expect(loadNetworks({ ...paths, env: {} })).rejects.toThrow(/configured twice/);
  });
});

describe('Network registry', () => {
  let chain: LocalChain;
  let registry: NetworkRegistry;

  beforeAll(async () => {
    const started = await startTestChain();
    chain = started.chain;
    registry = new NetworkRegistry([started.network]);
  }, 60_000);

  afterAll(async () => {
    await chain.stop();
  });

  it('when a request names an unknown network, then it is a 400 validation error on networkId', () => {
    const error = (() => {
      try {
        registry.require('80001');
      } catch (reason) {
        return reason;
      }
    })();

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('validation');
    expect((error as DomainError).errors).toEqual([
      { field: 'networkId', error: 'Unknown or unconfigured network' },
    ]);
  });

  it('when the network is outside the user plan, then it is providerNotInPlan (403)', () => {
    const error = (() => {
      try {
        return registry.requireForUser('31337', ['137']);
      } catch (reason: unknown) {
        return reason;
      }
    })();

    expect((error as DomainError).code).toBe('providerNotInPlan');
    expect(registry.requireForUser('31337', ['137', '31337'])).toMatchObject({
      networkId: '31337',
    });
  });

  it('when the node serves the configured chain, then start-up checks pass', async () => {
    await expect(registry.verifyChainIds({ requireReachable: true })).resolves.toBeUndefined();
  });

  it('when the node serves another chain than configured, then start-up stops with both ids', async () => {
    const [network] = registry.list();
    if (!network) throw new Error('one network');
    // The path as a provider gives its key in it: never in the message.
    const wrong = new NetworkRegistry([
      { ...network, rpcUrl: `${network.rpcUrl}/v3/SECRETKEY123`, chainId: 11155111 },
    ]);

    const error = await wrong.verifyChainIds().catch((reason: unknown) => reason);

    expect((error as Error).message).toMatch(
      /the node at http:\/\/127\.0\.0\.1:\d+\/… serves chain 31337, but the configuration says 11155111/,
    );
    expect((error as Error).message).not.toContain('SECRETKEY123');
  });

  it('when a node is unreachable, then start-up reports it, or stops when reachability is required', async () => {
    const [network] = registry.list();
    if (!network) throw new Error('one network');
    const dead = new NetworkRegistry([networkFor('http://127.0.0.1:9', network)]);
    const unreachable: string[] = [];

    await dead.verifyChainIds({ onUnreachable: (n) => unreachable.push(n.networkId) });

    expect(unreachable).toEqual(['31337']);
    await expect(dead.verifyChainIds({ requireReachable: true })).rejects.toThrow(/unreachable/);
  });
});
