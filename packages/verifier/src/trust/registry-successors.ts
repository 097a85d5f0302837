import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';

import { jsonRpcCall } from '../rpc/json-rpc-call.js';
import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';

/** `nextGeneration()` of a registry generation (IRegistryGeneration). */
export const NEXT_GENERATION_SELECTOR = `0x${bytesToHex(keccak_256(new TextEncoder().encode('nextGeneration()'))).slice(0, 8)}`;

/** At most this many announcements are followed from a pinned registry. */
export const MAX_GENERATIONS_FOLLOWED = 8;

/**
 * The registries a pinned one announced on chain, in order (its successor, that one's, ...),
 * read with `nextGeneration()` through a node already checked to be on the pinned chain. A
 * registry of an earlier generation, without the function, announces nothing.
 */
export async function announcedSuccessors(
  url: string,
  registry: string,
  options: JsonRpcOptions,
): Promise<string[]> {
  const successors: string[] = [];
  let current = registry;
  for (let step = 0; step < MAX_GENERATIONS_FOLLOWED; step += 1) {
    let result: unknown;
    try {
      result = await jsonRpcCall(
        url,
        'eth_call',
        [{ to: current, data: NEXT_GENERATION_SELECTOR }, 'latest'],
        options,
      );
    } catch {
      break;
    }
    if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(result)) break;
    const next = `0x${result.slice(26)}`;
    if (/^0x0{40}$/.test(next) || successors.includes(next.toLowerCase())) break;
    successors.push(next.toLowerCase());
    current = next;
  }
  return successors;
}
