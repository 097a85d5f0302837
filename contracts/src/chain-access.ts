import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Who may ask the embedded chain what. The Hardhat node behind the relay has unlocked accounts,
 * public keys and `hardhat_*` / `evm_*` methods that rewrite state; the registries are administered
 * by one of those accounts. So the relay answers reads to anyone (verifiers read the chain, as the
 * README invites), and everything else only to the Trustpoint service that runs the chain: a
 * request carrying the chain's write credential (`Authorization: Bearer <key>`, the key in the
 * chain's data directory) that is not a web page's.
 */

/**
 * What anyone may ask: reads, including what ethers providers, the verifiers, the reconciler and
 * the service's readiness checks use. Nothing here changes the chain or signs.
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'eth_call',
  'eth_chainId',
  'net_version',
  'net_listening',
  'web3_clientVersion',
  'eth_syncing',
  'eth_blockNumber',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
  // The verifier proves a node's chain by its genesis block and dates a record by its block.
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getLogs',
  'eth_gasPrice',
  'eth_feeHistory',
  'eth_maxPriorityFeePerGas',
  'eth_estimateGas',
]);

/**
 * The most calls one batch of a caller other than the service may hold, and the most bytes its
 * body may have: a verifier sends a few small calls, and one anonymous batch of 200,000 calls kept
 * the node busy for minutes, answering nobody else.
 */
export const OPEN_MAX_BATCH = 100;
export const OPEN_MAX_BODY_BYTES = 1024 * 1024;

/** Who sent a request, as far as the chain's access rules go. */
export type Caller = 'service' | 'web page' | 'anyone';

/** Whether `authorization` carries `Bearer <key>`, compared in constant time. */
function holdsKey(authorization: string | undefined, key: string): boolean {
  if (authorization === undefined) return false;
  // Digests: equal lengths whatever was sent, so the comparison says nothing about the key's.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(authorization), digest(`Bearer ${key}`));
}

/**
 * The caller of a request. A web page (any request with an Origin header) only ever reads, even
 * with the key: a browser cannot send the Authorization header to the chain anyway (the preflight
 * allows `content-type` alone), and the service never sends an Origin.
 */
export function callerOf(headers: IncomingHttpHeaders, writeKey: string): Caller {
  if (headers.origin !== undefined) return 'web page';
  return holdsKey(headers.authorization, writeKey) ? 'service' : 'anyone';
}

function refusal(method: unknown, caller: Exclude<Caller, 'service'>): string {
  const name = typeof method === 'string' ? method.slice(0, 100) : 'a call without a method';
  return caller === 'web page'
    ? `${name} is not available to web pages on the embedded chain: they may only read it`
    : `${name} is refused: the embedded chain takes transactions only from the Trustpoint service that runs it (reads are open to anyone)`;
}

/** A call's member, when the call is an object. */
function memberOf(call: unknown, name: 'id' | 'method'): unknown {
  return typeof call === 'object' && call !== null
    ? (call as Record<string, unknown>)[name]
    : undefined;
}

/**
 * The reply to a request (parsed JSON) that asks for anything but reads (JSON-RPC "method not
 * found", for each call of a batch: a batch is relayed whole or not at all), or undefined when
 * every call is a read.
 */
export function refusedCalls(
  calls: unknown,
  caller: Exclude<Caller, 'service'>,
): string | undefined {
  const list: unknown[] = Array.isArray(calls) ? calls : [calls];
  if (list.length > OPEN_MAX_BATCH) {
    return JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `a batch may hold at most ${String(OPEN_MAX_BATCH)} calls: send several`,
      },
    });
  }
  const refused = list.find((call) => {
    const method = memberOf(call, 'method');
    return typeof method !== 'string' || !READ_METHODS.has(method);
  });
  if (refused === undefined) return undefined;
  const error = { code: -32601, message: refusal(memberOf(refused, 'method'), caller) };
  const answer = (call: unknown) => ({ jsonrpc: '2.0', id: memberOf(call, 'id') ?? null, error });
  return JSON.stringify(Array.isArray(calls) ? list.map(answer) : answer(calls));
}
