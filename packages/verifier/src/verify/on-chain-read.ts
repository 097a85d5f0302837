import { UnexpectedEthCallResponseError } from '../chain/unexpected-eth-call-response-error.js';
import { askNodes, type JsonRpcOptions, type NodeAttempt } from '../rpc/json-rpc-nodes.js';

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
