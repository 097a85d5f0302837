import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deployTrustpoint,
  EvidenceRepository__factory,
  freePort,
  HARDHAT_DEV_KEY,
  readDeployments,
  startLocalChain,
  TrustPointRegistry__factory,
  type LocalChain,
} from '@trustpoint/contracts';
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import type { NetworkConfig } from '../../src/networks/network-config.js';

export function networkFor(
  rpcUrl: string,
  addresses: { trustPointRegistry: string; evidenceRepository: string },
  batch: { maxSize: number; maxWaitMs: number } = { maxSize: 50, maxWaitMs: 20 },
): NetworkConfig {
  return {
    networkId: '31337',
    name: 'test chain',
    rpcUrl,
    chainId: 31337,
    trustPointRegistry: addresses.trustPointRegistry,
    evidenceRepository: addresses.evidenceRepository,
    signerKey: HARDHAT_DEV_KEY,
    confirmations: 1,
    explorerUrl: undefined,
    batch,
  };
}

/** A journaled local chain in this process with freshly deployed registries. */
export async function startTestChain(): Promise<{ chain: LocalChain; network: NetworkConfig }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-test-'));
  const chain = await startLocalChain({ dataDir, port: await freePort() });
  const provider = new JsonRpcProvider(chain.url, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
  provider.destroy();
  return { chain, network: networkFor(chain.url, deployment) };
}

export async function deploymentOf(dataDir: string) {
  const deployment = (await readDeployments(join(dataDir, 'deployments.json')))['31337'];
  if (!deployment) throw new Error('no deployment recorded');
  return deployment;
}

/** Registry handles for checks made the way an outside client would. */
export function contractsOf(network: NetworkConfig) {
  const provider = new JsonRpcProvider(network.rpcUrl, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const writer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
  return {
    provider,
    registry: TrustPointRegistry__factory.connect(network.trustPointRegistry, writer),
    repository: EvidenceRepository__factory.connect(network.evidenceRepository, writer),
  };
}

/** How many registration events each key has on chain: exactly-once means 1 for each. */
export async function eventCountsByKey(network: NetworkConfig): Promise<Map<string, number>> {
  const { provider, registry, repository } = contractsOf(network);
  const counts = new Map<string, number>();
  const logs = [
    ...(await registry.queryFilter(registry.filters.TrustPointRegistered(), 0, 'latest')),
    ...(await repository.queryFilter(repository.filters.EvidenceRegistered(), 0, 'latest')),
  ];
  for (const log of logs) {
    const key = log.args[0].toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  provider.destroy();
  return counts;
}
