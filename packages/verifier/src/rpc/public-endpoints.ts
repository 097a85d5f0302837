/**
 * Public JSON-RPC endpoints of well-known chains, for a verifier whose user has no node of their
 * own for a network: an answer of theirs counts only when at least two endpoints of different
 * operators, each proven to be on the pinned chain (chain id and genesis block), give the same
 * one. One endpoint could lie; two operators would have to lie alike. Opt-in: nothing here is
 * asked unless a caller passes a list (`PUBLIC_CHAINS`, or its own).
 */

/** A JSON-RPC endpoint anyone may call, and who runs it. */
export interface PublicEndpoint {
  /** An http(s) URL; the built-in list names https endpoints only. */
  url: string;
  /** Who runs it: two endpoints of one operator count as one. */
  operator: string;
}

/** A well-known chain: how a node proves to be on it, and public endpoints that serve it. */
export interface PublicChain {
  name: string;
  chainId: number;
  /** Block 0's hash, 0x and 64 hex characters. */
  genesisHash: string;
  endpoints: readonly PublicEndpoint[];
}

/** How many endpoints of different operators must give the same answer. */
export const PUBLIC_ENDPOINT_QUORUM = 2;

/**
 * The built-in list, kept short on purpose. Chain ids and endpoints from each chain's own
 * documentation (Arbitrum, Base, Optimism, Polygon) and chainlist.org (ethereum-lists/chains);
 * genesis hashes as the clients pin them (go-ethereum's params for Ethereum and Sepolia, Bor for
 * Polygon, op-geth and reth for OP Mainnet and Base, Nitro for Arbitrum One). Operators: PublicNode
 * (Allnodes), dRPC, 1RPC (Automata), and each rollup's own team. Public endpoints are rate-limited
 * and may change: an operator overrides the list (see the README), a user adds their own node.
 */
export const PUBLIC_CHAINS: readonly PublicChain[] = [
  {
    name: 'Ethereum',
    chainId: 1,
    genesisHash: '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
    endpoints: [
      { url: 'https://ethereum-rpc.publicnode.com', operator: 'PublicNode' },
      { url: 'https://eth.drpc.org', operator: 'dRPC' },
      { url: 'https://1rpc.io/eth', operator: '1RPC' },
    ],
  },
  {
    name: 'Sepolia',
    chainId: 11155111,
    genesisHash: '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9',
    endpoints: [
      { url: 'https://ethereum-sepolia-rpc.publicnode.com', operator: 'PublicNode' },
      { url: 'https://sepolia.drpc.org', operator: 'dRPC' },
      { url: 'https://1rpc.io/sepolia', operator: '1RPC' },
    ],
  },
  {
    name: 'Polygon PoS',
    chainId: 137,
    genesisHash: '0xa9c28ce2141b56c474f1dc504bee9b01eb1bd7d1a507580d5519d4437a97de1b',
    endpoints: [
      { url: 'https://polygon-rpc.com', operator: 'Polygon' },
      { url: 'https://polygon-bor-rpc.publicnode.com', operator: 'PublicNode' },
      { url: 'https://polygon.drpc.org', operator: 'dRPC' },
    ],
  },
  {
    name: 'Arbitrum One',
    chainId: 42161,
    genesisHash: '0x7ee576b35482195fc49205cec9af72ce14f003b9ae69f6ba0faef4514be8b442',
    endpoints: [
      { url: 'https://arb1.arbitrum.io/rpc', operator: 'Offchain Labs' },
      { url: 'https://arbitrum-one-rpc.publicnode.com', operator: 'PublicNode' },
      { url: 'https://arbitrum.drpc.org', operator: 'dRPC' },
    ],
  },
  {
    name: 'Base',
    chainId: 8453,
    genesisHash: '0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd',
    endpoints: [
      { url: 'https://mainnet.base.org', operator: 'Base' },
      { url: 'https://base-rpc.publicnode.com', operator: 'PublicNode' },
      { url: 'https://base.drpc.org', operator: 'dRPC' },
    ],
  },
  {
    name: 'OP Mainnet',
    chainId: 10,
    genesisHash: '0x7ca38a1916c42007829c55e69d3e9a73265554b586a499015373241b8a3fa48b',
    endpoints: [
      { url: 'https://mainnet.optimism.io', operator: 'Optimism' },
      { url: 'https://optimism-rpc.publicnode.com', operator: 'PublicNode' },
      { url: 'https://optimism.drpc.org', operator: 'dRPC' },
    ],
  },
];

/**
 * The public chain a pinned network is on: same chain id and, when the pin names one, the same
 * genesis hash (a private chain reusing chain id 1 is not Ethereum).
 */
export function publicChainFor(
  chains: readonly PublicChain[] | undefined,
  network: { chainId: number; genesisHash?: string | undefined },
): PublicChain | undefined {
  return chains?.find(
    (chain) =>
      chain.chainId === network.chainId &&
      (network.genesisHash === undefined ||
        chain.genesisHash.toLowerCase() === network.genesisHash.toLowerCase()),
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Thrown when a list of public chains (an operator's override) is not one. */
export class PublicChainsError extends Error {
  override readonly name = 'PublicChainsError';
}

/**
 * Reads a list of public chains as an operator or a test writes it:
 * `{"chains": [{"name", "chainId", "genesisHash", "endpoints": [{"url", "operator"}]}]}`.
 * Throws PublicChainsError naming the first bad member.
 */
export function readPublicChains(json: unknown): PublicChain[] {
  const fail = (message: string): never => {
    throw new PublicChainsError(message);
  };
  if (!isRecord(json) || !Array.isArray(json.chains)) return fail('$.chains must be an array');
  return json.chains.map((chain: unknown, index): PublicChain => {
    const path = `$.chains[${String(index)}]`;
    if (!isRecord(chain)) return fail(`${path} must be an object`);
    const { name, chainId, genesisHash, endpoints } = chain;
    if (typeof name !== 'string' || name.trim() === '') fail(`${path}.name must be a name`);
    if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId <= 0) {
      fail(`${path}.chainId must be a positive integer`);
    }
    if (typeof genesisHash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(genesisHash)) {
      fail(`${path}.genesisHash must be 0x and 64 hex characters`);
    }
    if (!Array.isArray(endpoints)) return fail(`${path}.endpoints must be an array`);
    return {
      name: name as string,
      chainId: chainId as number,
      genesisHash: genesisHash as string,
      endpoints: endpoints.map((endpoint: unknown, at): PublicEndpoint => {
        const where = `${path}.endpoints[${String(at)}]`;
        if (!isRecord(endpoint)) return fail(`${where} must be an object`);
        const { url, operator } = endpoint;
        if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url)) {
          fail(`${where}.url must be an http(s) URL`);
        }
        if (typeof operator !== 'string' || operator.trim() === '') {
          fail(`${where}.operator must name who runs it`);
        }
        return { url: url as string, operator: operator as string };
      }),
    };
  });
}
