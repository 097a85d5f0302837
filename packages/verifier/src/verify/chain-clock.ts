import { isQuantity, jsonRpcCall } from '../rpc/json-rpc-call.js';
import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';

/**
 * The chain's time (ms): the earliest of the latest blocks' times that `nodes` (every node that
 * answered for the records) tell, or `undefined` when none tells it. Expiry is judged at the later
 * of this and the verifier's own clock: a clock set back cannot make an expired certificate valid
 * while the chain is later; a chain without recent blocks (a development chain mines only when
 * asked) does not hold time back; and one node telling a time years ahead cannot make a valid
 * certificate expired while another tells the truth (the earliest counts).
 */
export async function latestChainTime(
  nodes: readonly string[],
  options: JsonRpcOptions,
): Promise<number | undefined> {
  const times = await Promise.all(
    [...new Set(nodes)].map(async (url) => {
      try {
        const block = await jsonRpcCall(url, 'eth_getBlockByNumber', ['latest', false], options);
        const timestamp = (block as { timestamp?: unknown } | null)?.timestamp;
        return isQuantity(timestamp) ? Number(BigInt(timestamp)) * 1000 : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  const known = times.filter((time): time is number => time !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}
