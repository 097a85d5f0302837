import type { PinnedNetwork } from '../trust/trust.js';
import { isHash32, isQuantity, jsonRpcCall } from './json-rpc-call.js';
import type { JsonRpcOptions } from './json-rpc-nodes.js';

/**
 * A node answers for a pinned network only once it proved to be on that chain: its `eth_chainId`
 * is the pinned chain id and its block 0 has the pinned genesis hash (dev chains share chain ids
 * 31337 and 1337, so the id alone proves little). Checked once per node and network in a
 * verification.
 */
export class NodeIdentityCheck {
  readonly #options: JsonRpcOptions;
  readonly #checked = new Map<string, Promise<string | undefined>>();

  constructor(options: JsonRpcOptions) {
    this.#options = options;
  }

  /** Undefined when the node is on the network; otherwise why not, for the verdict. */
  check(
    url: string,
    network: Pick<PinnedNetwork, 'chainId' | 'genesisHash'>,
  ): Promise<string | undefined> {
    const key = `${url}\n${String(network.chainId)}\n${network.genesisHash ?? ''}`;
    let checking = this.#checked.get(key);
    if (checking === undefined) {
      checking = this.#check(url, network);
      this.#checked.set(key, checking);
    }
    return checking;
  }

  async #check(
    url: string,
    network: Pick<PinnedNetwork, 'chainId' | 'genesisHash'>,
  ): Promise<string | undefined> {
    try {
      const chainId = await jsonRpcCall(url, 'eth_chainId', [], this.#options);
      if (!isQuantity(chainId)) return 'eth_chainId: not a quantity';
      if (BigInt(chainId) !== BigInt(network.chainId)) {
        return `the node is on chain ${BigInt(chainId).toString()}, not ${String(network.chainId)}`;
      }
      if (network.genesisHash === undefined) return undefined;
      const genesis = await jsonRpcCall(url, 'eth_getBlockByNumber', ['0x0', false], this.#options);
      const hash = (genesis as { hash?: unknown } | null)?.hash;
      if (!isHash32(hash)) return 'eth_getBlockByNumber(0): no block hash';
      if (hash.toLowerCase() !== network.genesisHash.toLowerCase()) {
        return `the node's genesis block is ${hash}, not the pinned ${network.genesisHash}: another chain with the same chain id`;
      }
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}
