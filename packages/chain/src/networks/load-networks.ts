import { readFile } from 'node:fs/promises';
import { readDeployments, HARDHAT_CHAIN_ID, HARDHAT_DEV_KEY } from '@trustpoint/registry-abi';
import { z } from 'zod';
import {
  defaultAnchorTimeoutMs,
  networksFileSchema,
  signerKeySchema,
  type NetworkConfig,
  type NetworksFile,
} from './network-config.js';
import { queueCapacity } from './queue-capacity.js';

export class NetworkConfigError extends Error {
  override readonly name = 'NetworkConfigError';
}

export interface LoadNetworksOptions {
  /** JSON networks file; without one, the embedded local chain is the only network. */
  networksFile?: string | undefined;
  /** Deployments file written by the deploy CLI and the local chain. */
  deploymentsFile: string;
  env?: NodeJS.ProcessEnv;
  /** Where the embedded chain listens, when it is not on the default 127.0.0.1:8545. */
  embeddedRpcUrl?: string;
  /**
   * The headers to send to a network's node (`NetworkConfig.rpcHeaders`), or undefined for none:
   * the launcher gives the embedded chain's write credential to the entry that reaches it.
   */
  rpcHeadersFor?: (network: {
    chainId: number;
    rpcUrl: string;
  }) => Readonly<Record<string, string>> | undefined;
}

/** The network used when nothing is configured: the embedded chain on 127.0.0.1:8545. */
export const EMBEDDED_NETWORKS: NetworksFile = networksFileSchema.parse({
  networks: [
    {
      networkId: HARDHAT_CHAIN_ID.toString(),
      name: 'Embedded local chain',
      rpcUrl: 'http://127.0.0.1:8545',
      chainId: Number(HARDHAT_CHAIN_ID),
      localUser: true,
      // It mines every transaction as it arrives: a batch waiting for company only waits.
      batch: { sendWhenIdle: true },
    },
  ],
});

function embeddedNetworks(rpcUrl: string | undefined): NetworksFile {
  if (rpcUrl === undefined) return EMBEDDED_NETWORKS;
  return { networks: EMBEDDED_NETWORKS.networks.map((network) => ({ ...network, rpcUrl })) };
}

async function readNetworksFile(path: string): Promise<NetworksFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new NetworkConfigError(`Cannot read networks file ${path}: ${(error as Error).message}`);
  }
  const parsed = networksFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new NetworkConfigError(
      `Invalid networks file ${path}:\n${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/**
 * Resolves every configured network: addresses from the file or the deployments file, the signer
 * key from the environment (the Hardhat development key only for a local Hardhat chain). Any gap
 * stops start-up with a message naming the network and what is missing.
 */
export async function loadNetworks(options: LoadNetworksOptions): Promise<NetworkConfig[]> {
  const env = options.env ?? process.env;
  const file = options.networksFile
    ? await readNetworksFile(options.networksFile)
    : embeddedNetworks(options.embeddedRpcUrl);
  const deployments = await readDeployments(options.deploymentsFile);
  const seen = new Set<string>();

  return file.networks.map((entry) => {
    if (seen.has(entry.networkId)) {
      throw new NetworkConfigError(`Network ${entry.networkId} is configured twice`);
    }
    seen.add(entry.networkId);
    const deployment = deployments[String(entry.chainId)];
    const trustPointRegistry = entry.trustPointRegistry ?? deployment?.trustPointRegistry;
    const evidenceRepository = entry.evidenceRepository ?? deployment?.evidenceRepository;
    const statusRegistry = entry.statusRegistry ?? deployment?.statusRegistry;
    if (!trustPointRegistry || !evidenceRepository) {
      throw new NetworkConfigError(
        `Network ${entry.networkId}: no registry addresses in the networks file nor for chain ${String(entry.chainId)} in ${options.deploymentsFile}; deploy the contracts first`,
      );
    }
    const envKey = entry.signerKeyEnv ? env[entry.signerKeyEnv] : undefined;
    const signerKey =
      envKey ?? (BigInt(entry.chainId) === HARDHAT_CHAIN_ID ? HARDHAT_DEV_KEY : undefined);
    if (!signerKey) {
      throw new NetworkConfigError(
        `Network ${entry.networkId}: set ${entry.signerKeyEnv ?? 'signerKeyEnv in the networks file and that variable'} to the registrar's private key`,
      );
    }
    if (!signerKeySchema.safeParse(signerKey).success) {
      throw new NetworkConfigError(
        `Network ${entry.networkId}: the registrar key must be 0x followed by 64 hex characters`,
      );
    }
    const anchorTimeoutMs =
      entry.anchorTimeoutMs ?? defaultAnchorTimeoutMs(entry.confirmations, entry.blockTimeMs);
    const rpcHeaders = options.rpcHeadersFor?.(entry);
    return {
      networkId: entry.networkId,
      name: entry.name ?? `Chain ${String(entry.chainId)}`,
      rpcUrl: entry.rpcUrl,
      ...(rpcHeaders === undefined ? {} : { rpcHeaders }),
      chainId: entry.chainId,
      trustPointRegistry,
      evidenceRepository,
      ...(statusRegistry === undefined ? {} : { statusRegistry }),
      signerKey,
      confirmations: entry.confirmations,
      explorerUrl: entry.explorerUrl,
      batch: entry.batch,
      fees: {
        maxFeePerGasCap: entry.maxFeePerGasCap,
        minPriorityFeePerGas: entry.minPriorityFeePerGas,
        replaceAfterBlocks: entry.replaceAfterBlocks,
      },
      anchorTimeoutMs,
      queue: queueCapacity({
        blockGasLimit: entry.blockGasLimit,
        blockTimeMs: entry.blockTimeMs,
        anchorTimeoutMs,
        maxQueuedRecords: entry.maxQueuedRecords,
      }),
      acknowledgement: entry.acknowledgement,
      localUser: entry.localUser,
    };
  });
}
