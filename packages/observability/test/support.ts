import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnchorRequest, NetworkConfig } from '@trustpoint/chain';
import {
  chainWriterProvider,
  deployTrustpoint,
  HARDHAT_DEV_KEY,
  startLocalChain,
  type LocalChain,
} from '@trustpoint/contracts';
import { Wallet } from 'ethers';

/** A local chain in this process with freshly deployed registries, and its network's settings. */
export async function startTestChain(): Promise<{ chain: LocalChain; network: NetworkConfig }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-observability-'));
  const chain = await startLocalChain({ dataDir, port: 0 });
  const provider = chainWriterProvider(chain.url, chain.writeHeaders);
  const deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
  provider.destroy();
  return {
    chain,
    network: {
      networkId: '31337',
      name: 'test chain',
      rpcUrl: chain.url,
      rpcHeaders: chain.writeHeaders,
      chainId: 31337,
      trustPointRegistry: deployment.trustPointRegistry,
      evidenceRepository: deployment.evidenceRepository,
      signerKey: HARDHAT_DEV_KEY,
      confirmations: 1,
      explorerUrl: undefined,
      batch: { maxSize: 50, maxWaitMs: 20 },
    },
  };
}

/** One JSON-RPC call; `headers`: the chain's `writeHeaders`, for anything but reads. */
export async function rpc(
  url: string,
  method: string,
  params: unknown[],
  headers: Readonly<Record<string, string>> = {},
): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

export function evidenceRequest(networkId: string): AnchorRequest {
  return {
    networkId,
    kind: 'evidence',
    recordKey: `0x${randomBytes(32).toString('hex')}`,
    hash: randomBytes(32).toString('hex'),
    // Now, as a live service's: a batch registry takes slot records only in buckets no data batch
    // has passed.
    timestamp: Math.floor(Date.now() / 1_000),
  };
}
