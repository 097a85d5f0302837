import { UnexpectedEthCallResponseError } from '../chain/unexpected-eth-call-response-error.js';
import { askNodes, type JsonRpcOptions, type NodeAttempt } from '../rpc/json-rpc-nodes.js';
import { isTrustedContract, rpcUrlsFor, type RpcUrls, type TrustedContracts } from './rpc-urls.js';

/**
 * One lookup sent to the trusted nodes in turn. A node that fails or answers something that is
 * neither the record nor the not-found revert (a node of another chain, no contract at the
 * address, a rate limit) is skipped: the next may know better. Only the first usable answer counts.
 */
export type OnChainRead<Found> =
  | { outcome: 'found'; value: Found; node: string; attempts: NodeAttempt[] }
  | { outcome: 'notFound'; node: string; attempts: NodeAttempt[] }
  | { outcome: 'unreachable'; attempts: NodeAttempt[] }
  | { outcome: 'unexpected'; attempts: NodeAttempt[] };

export async function readOnChain<Found extends { found: true }>(
  urls: readonly string[],
  request: unknown,
  decode: (reply: unknown) => Found | { found: false },
  options: JsonRpcOptions,
): Promise<OnChainRead<Found>> {
  const answer = await askNodes(urls, request, markUnexpected(decode), options);
  if (!answer.answered) {
    // Every node failed: unexpected if at least one answered but not usably, else unreachable.
    const unexpected = answer.attempts.some((attempt) =>
      attempt.error.startsWith(UNEXPECTED_PREFIX),
    );
    return { outcome: unexpected ? 'unexpected' : 'unreachable', attempts: answer.attempts };
  }
  const { value, url, attempts } = answer;
  if (!value.found) return { outcome: 'notFound', node: url, attempts };
  return { outcome: 'found', value, node: url, attempts };
}

const UNEXPECTED_PREFIX = 'unexpected reply: ';

/** Wraps a decoder so that its refusals are told apart from transport failures in the attempts. */
export function markUnexpected<T>(decode: (reply: unknown) => T): (reply: unknown) => T {
  return (reply) => {
    try {
      return decode(reply);
    } catch (error) {
      if (error instanceof UnexpectedEthCallResponseError) {
        throw new Error(`${UNEXPECTED_PREFIX}${error.message}`);
      }
      throw error;
    }
  };
}

/** Where a record is looked up, and how its answers name it. */
export interface RecordTarget {
  networkId: number | string;
  /** The contract the record's JSON names; undefined while it is not anchored. */
  smartContract: string | undefined;
  /** What names the contract: `certificate` or `evidence`. */
  holder: string;
  /** What the contract is: `registry` or `repository`. */
  contract: string;
  /** The lookup key as people read it, e.g. `(certID, 1767225600000)`. */
  key: string;
}

/**
 * The lookup of one record before any hash is compared: the record the trusted nodes hold, or
 * the verdict that ends its check (not anchored yet, an untrusted contract, no node, not found).
 */
export type RecordLookup<Found> =
  | { outcome: 'found'; value: Found; answered: { node: string; attempts: NodeAttempt[] } }
  | {
      outcome: 'pending' | 'mismatch' | 'unreachable' | 'unexpected' | 'notFound';
      detail: string;
      more: { node?: string; attempts?: NodeAttempt[] };
    };

export async function lookUpRecord<Found extends { found: true }>(
  target: RecordTarget,
  request: (smartContract: string) => unknown,
  decode: (reply: unknown) => Found | { found: false },
  options: JsonRpcOptions & { rpc: RpcUrls; contracts?: TrustedContracts | undefined },
): Promise<RecordLookup<Found>> {
  const { networkId, smartContract } = target;
  if (smartContract === undefined) {
    const detail = `not anchored yet: the ${target.holder} names no contract to ask`;
    return { outcome: 'pending', detail, more: {} };
  }
  if (isTrustedContract(options.contracts, networkId, smartContract) === false) {
    const detail = `the ${target.contract} ${smartContract} is not one you trust for network ${String(networkId)}`;
    return { outcome: 'mismatch', detail, more: {} };
  }
  const urls = rpcUrlsFor(options.rpc, networkId);
  if (urls.length === 0) {
    const detail = `no JSON-RPC URL given for network ${String(networkId)}`;
    return { outcome: 'unreachable', detail, more: {} };
  }
  const read = await readOnChain(urls, request(smartContract), decode, options);
  if (read.outcome === 'unreachable' || read.outcome === 'unexpected') {
    const detail =
      read.outcome === 'unreachable'
        ? 'no node answered'
        : 'the nodes answered with neither a record nor the not-found revert';
    return { outcome: read.outcome, detail, more: { attempts: read.attempts } };
  }
  const answered = { node: read.node, attempts: read.attempts };
  if (read.outcome === 'notFound') {
    const detail = `no record for ${target.key} on this contract`;
    return { outcome: 'notFound', detail, more: answered };
  }
  return { outcome: 'found', value: read.value, answered };
}
