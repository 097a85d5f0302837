import { FetchRequest, JsonRpcProvider, Network } from 'ethers';

/** Default bound on one JSON-RPC request: a node that does not answer counts as down. */
export const DEFAULT_RPC_TIMEOUT_MS = 5_000;

/**
 * An ethers provider for one network, set up for a long-running service: the chain id is fixed
 * (no background network detection that retries forever when a node is down), requests are not
 * batched, and each request gives up after `timeoutMs`. `headers` go with every request
 * (`NetworkConfig.rpcHeaders`).
 */
export function createJsonRpcProvider(
  rpcUrl: string,
  chainId: number,
  timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
  headers: Readonly<Record<string, string>> = {},
): JsonRpcProvider {
  const request = new FetchRequest(rpcUrl);
  request.timeout = timeoutMs;
  for (const [name, value] of Object.entries(headers)) request.setHeader(name, value);
  return new JsonRpcProvider(request, Network.from(chainId), {
    staticNetwork: Network.from(chainId),
    batchMaxCount: 1,
    polling: false,
    cacheTimeout: -1,
  });
}

/** Asks a node for its chain id: `eth_chainId`, falling back to `net_version`. */
export async function readChainId(
  rpcUrl: string,
  timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
): Promise<number> {
  const call = async (method: string) => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === 'string' ? Number(body.result) : Number.NaN;
  };
  const chainId = await call('eth_chainId');
  if (Number.isSafeInteger(chainId)) return chainId;
  const netVersion = await call('net_version');
  if (Number.isSafeInteger(netVersion)) return netVersion;
  throw new Error('the node answered neither eth_chainId nor net_version with a number');
}
