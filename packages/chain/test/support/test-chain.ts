import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chainWriterProvider,
  deployTrustpoint,
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  HARDHAT_DEV_KEY,
  readDeployments,
  startLocalChain,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  type LocalChain,
  type RegistryGeneration,
} from '@trustpoint/contracts';
import { NonceManager, Wallet } from 'ethers';
import type { AnchorRequest } from '../../src/anchoring/anchor-record.js';
import { scanRegistries, type ChainRecord } from '../../src/reconciling/registry-scan.js';
import { JsonRpcClient } from '../../src/rpc/json-rpc-client.js';
import type { NetworkConfig } from '../../src/networks/network-config.js';

/** The network of a test chain; `rpcHeaders`: the embedded chain's `writeHeaders`, to anchor. */
export function networkFor(
  rpcUrl: string,
  addresses: {
    trustPointRegistry: string;
    evidenceRepository: string;
    statusRegistry?: string;
    rpcHeaders?: Readonly<Record<string, string>>;
  },
  batch: { maxSize: number; maxWaitMs: number } = { maxSize: 50, maxWaitMs: 20 },
): NetworkConfig {
  return {
    ...(addresses.statusRegistry === undefined ? {} : { statusRegistry: addresses.statusRegistry }),
    ...(addresses.rpcHeaders === undefined ? {} : { rpcHeaders: addresses.rpcHeaders }),
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

/**
 * A journaled local chain in this process with freshly deployed registries (batch registries unless
 * told), and its data directory (its write key: `TRUSTPOINT_CHAIN_DIR` of an anchoring process).
 */
export async function startTestChain(
  registries: RegistryGeneration = 'batches',
): Promise<{ chain: LocalChain; network: NetworkConfig; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-test-'));
  const chain = await startLocalChain({ dataDir, port: 0 });
  const provider = chainWriterProvider(chain.url, chain.writeHeaders);
  const deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider), { registries });
  provider.destroy();
  return {
    chain,
    network: networkFor(chain.url, { ...deployment, rpcHeaders: chain.writeHeaders }),
    dataDir,
  };
}

export async function deploymentOf(dataDir: string) {
  const deployment = (await readDeployments(join(dataDir, 'deployments.json')))['31337'];
  if (!deployment) throw new Error('no deployment recorded');
  return deployment;
}

/**
 * Registry handles for checks made the way an outside client would, of both generations; they
 * write with the network's `rpcHeaders`, as another writer holding the chain's credential would.
 */
export function contractsOf(network: NetworkConfig) {
  const provider = chainWriterProvider(network.rpcUrl, network.rpcHeaders ?? {});
  const writer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
  return {
    provider,
    registry: TrustPointRegistry__factory.connect(network.trustPointRegistry, writer),
    repository: EvidenceRepository__factory.connect(network.evidenceRepository, writer),
    batchRegistry: TrustPointBatchRegistry__factory.connect(network.trustPointRegistry, writer),
    batchRepository: EvidenceBatchRepository__factory.connect(network.evidenceRepository, writer),
  };
}

/** Whether the network's registries keep large batches as contract code. */
export async function isBatchRegistry(network: NetworkConfig): Promise<boolean> {
  const { provider, batchRegistry } = contractsOf(network);
  try {
    await batchRegistry.bucketOf(0);
    return true;
  } catch {
    return false;
  } finally {
    provider.destroy();
  }
}

/** What the chain holds for a request's key: its hash and type, or undefined. */
export async function onChainRecord(
  network: NetworkConfig,
  request: AnchorRequest,
): Promise<{ hash: string; type: number } | undefined> {
  const batches = await isBatchRegistry(network);
  const { provider, registry, repository, batchRegistry, batchRepository } = contractsOf(network);
  try {
    if (batches) {
      if (request.kind === 'trustpoint') {
        const [found, hash, type] = await batchRegistry.findTrustPoint(
          request.recordKey,
          request.timestamp,
        );
        return found ? { hash, type: Number(type) } : undefined;
      }
      const [found, hash] = await batchRepository.findEvidence(
        request.recordKey,
        request.timestamp,
      );
      return found ? { hash, type: 0 } : undefined;
    }
    if (request.kind === 'trustpoint') {
      const [hash, type] = await registry.trustPointOf(request.recordKey);
      return BigInt(hash) === 0n ? undefined : { hash, type: Number(type) };
    }
    const hash = await repository.evidenceOf(request.recordKey);
    return BigInt(hash) === 0n ? undefined : { hash, type: 0 };
  } finally {
    provider.destroy();
  }
}

/** Writes a record straight to the registry with the registrar's key, as another writer would. */
export async function registerDirectly(
  network: NetworkConfig,
  request: AnchorRequest,
  hash: string,
  type: 0 | 1 | 2 = 0,
): Promise<void> {
  const batches = await isBatchRegistry(network);
  const { provider, registry, repository, batchRegistry, batchRepository } = contractsOf(network);
  try {
    const sent = batches
      ? request.kind === 'trustpoint'
        ? await batchRegistry.registerTrustPoint(request.recordKey, hash, type, request.timestamp)
        : await batchRepository.registerEvidence(request.recordKey, hash, request.timestamp)
      : request.kind === 'trustpoint'
        ? await registry.registerTrustPoint(request.recordKey, hash, type)
        : await repository.registerEvidence(request.recordKey, hash);
    await sent.wait();
  } finally {
    provider.destroy();
  }
}

/** How many times the chain holds each key: exactly-once means 1 for each. */
export class RecordCounts {
  // Data batch records are known by the key's top 126 bits only, so every record is counted so.
  readonly #byPrefix = new Map<bigint, number>();

  constructor(records: readonly ChainRecord[]) {
    for (const { keyPrefix } of records) {
      this.#byPrefix.set(keyPrefix, (this.#byPrefix.get(keyPrefix) ?? 0) + 1);
    }
  }

  get(key: string): number | undefined {
    return this.#byPrefix.get(BigInt(key) >> 130n);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }
}

/** Every record of the network's registries (either generation), read as anyone would. */
export async function eventCountsByKey(network: NetworkConfig): Promise<RecordCounts> {
  const client = new JsonRpcClient(network.rpcUrl, 10_000);
  const records = await scanRegistries({
    rpcUrl: network.rpcUrl,
    contracts: [network.trustPointRegistry, network.evidenceRepository],
    fromBlock: 0,
    toBlock: await client.blockNumber(),
  });
  return new RecordCounts(records);
}
