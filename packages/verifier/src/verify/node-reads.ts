import { UnexpectedEthCallResponseError } from '../chain/unexpected-eth-call-response-error.js';
import { askNodes, type JsonRpcOptions, type NodeAttempt } from '../rpc/json-rpc-nodes.js';
import {
  PUBLIC_ENDPOINT_QUORUM,
  publicChainFor,
  type PublicChain,
} from '../rpc/public-endpoints.js';
import type { PinnedNetwork } from '../trust/trust.js';
import type { LookupContext } from './lookup-context.js';
import { rpcUrlsFor } from './rpc-urls.js';

/**
 * One lookup sent to every trusted node at once. A node that fails or answers something that is
 * neither the record nor the not-found revert (a node of another chain, no contract at the
 * address, a rate limit) is skipped: another may know better. The nodes that answer usably must
 * agree: a node of your own list that lies (a record hidden, a revocation hidden or made up) is
 * caught by any other that tells the truth, and then no answer is believed (`disagreement`).
 */
export type OnChainRead<Found> =
  | { outcome: 'found'; value: Found; node: string; nodes?: string[]; attempts: NodeAttempt[] }
  | { outcome: 'notFound'; node: string; nodes?: string[]; attempts: NodeAttempt[] }
  | { outcome: 'unreachable'; attempts: NodeAttempt[] }
  | { outcome: 'unexpected'; attempts: NodeAttempt[] }
  | {
      outcome: 'disagreement';
      answers: EndpointAnswer[];
      attempts: NodeAttempt[];
      detail: string;
    };

/**
 * Asks every node at once: the usable answers, in the order of `urls`, and why the others were
 * not (transport failures, and replies the decoder refused, marked `unexpected`).
 */
async function askEach<Found extends { found: true }>(
  urls: readonly string[],
  request: unknown,
  decode: (reply: unknown) => Found | { found: false },
  options: JsonRpcOptions,
): Promise<{
  usable: { url: string; value: Found | { found: false } }[];
  attempts: NodeAttempt[];
}> {
  const replies = await Promise.all(
    urls.map((url) => askNodes([url], request, markUnexpected(decode), options)),
  );
  const attempts: NodeAttempt[] = [];
  const usable: { url: string; value: Found | { found: false } }[] = [];
  for (const reply of replies) {
    if (reply.answered) usable.push({ url: reply.url, value: reply.value });
    else attempts.push(...reply.attempts);
  }
  return { usable, attempts };
}

export async function readOnChain<Found extends { found: true }>(
  urls: readonly string[],
  request: unknown,
  decode: (reply: unknown) => Found | { found: false },
  options: JsonRpcOptions,
): Promise<OnChainRead<Found>> {
  const { usable, attempts } = await askEach(urls, request, decode, options);
  const [first] = usable;
  if (first === undefined) {
    // Every node failed: unexpected if at least one answered but not usably, else unreachable.
    const unexpected = attempts.some((attempt) => attempt.error.startsWith(UNEXPECTED_PREFIX));
    return { outcome: unexpected ? 'unexpected' : 'unreachable', attempts };
  }
  if (new Set(usable.map(({ value }) => answerKey(value))).size > 1) {
    const answers = usable.map(({ url, value }) => ({ node: url, answer: describeAnswer(value) }));
    return {
      outcome: 'disagreement',
      answers,
      attempts,
      detail: `the nodes disagree, so none is believed: ${answers.map(({ node, answer }) => `${node} answered ${answer}`).join('; ')}`,
    };
  }
  // Several nodes that agree are named; one alone is the node, as before.
  const nodes = usable.length > 1 ? { nodes: usable.map(({ url }) => url) } : {};
  return first.value.found
    ? { outcome: 'found', value: first.value, node: first.url, ...nodes, attempts }
    : { outcome: 'notFound', node: first.url, ...nodes, attempts };
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

/**
 * The nodes, in the order given, that prove to be on the pinned chain (`eth_chainId` and the
 * genesis block's hash), and why the others were refused; every node is checked at once. Without
 * a pinned chain (nothing pins the network) every node is kept: what they answer is then never
 * more than untrusted.
 */
export async function provenNodes(
  urls: readonly string[],
  chain: Pick<PinnedNetwork, 'chainId' | 'genesisHash'> | undefined,
  context: LookupContext,
): Promise<{ checkedNodes: string[]; attempts: NodeAttempt[] }> {
  // All at once: a node that never answers costs its timeout once, not before every other check.
  const refusals =
    chain === undefined
      ? urls.map(() => undefined)
      : await Promise.all(urls.map((url) => context.identity.check(url, chain)));
  const attempts: NodeAttempt[] = [];
  const checkedNodes: string[] = [];
  urls.forEach((url, index) => {
    const refused = refusals[index];
    if (refused === undefined) checkedNodes.push(url);
    else attempts.push({ url, error: refused });
  });
  return { checkedNodes, attempts };
}

/**
 * Who answers for one chain in a verification, once proven to be on it:
 * - the user's nodes for the network (every one that answers must agree), whenever they gave any;
 * - else, when the pinned chain is a well-known public one and the caller passed public
 *   endpoints, those endpoints: an answer counts only when two of different operators agree.
 */
export interface ProvenNodeSet {
  /** The nodes that proved to be on the chain, in the order they are asked. */
  urls: readonly string[];
  /** Set when these are public endpoints of that chain (the user gave no node for the network). */
  publicChain?: PublicChain;
  /** Nodes refused (another chain), and why. */
  attempts: NodeAttempt[];
  /** Why nobody was asked, when no node was given and no public endpoint is known. */
  nobody?: string;
}

export async function nodesOnChain(
  networkId: number | string,
  chain: PinnedNetwork | undefined,
  context: LookupContext,
): Promise<ProvenNodeSet> {
  const own = rpcUrlsFor(context.rpc, networkId);
  if (own.length > 0) {
    const { checkedNodes, attempts } = await provenNodes(own, chain, context);
    return { urls: checkedNodes, attempts };
  }
  // Public endpoints only for a pinned chain: a network nothing pins is never more than
  // untrusted, and a well-known chain is recognised by the pin's chain id and genesis.
  const publicChain =
    chain === undefined ? undefined : publicChainFor(context.publicEndpoints, chain);
  if (publicChain === undefined) {
    const known =
      context.publicEndpoints === undefined
        ? ''
        : ', and no public endpoint is known for its chain';
    return {
      urls: [],
      attempts: [],
      nobody: `no JSON-RPC URL given for network ${String(networkId)}${known}`,
    };
  }
  const { checkedNodes, attempts } = await provenNodes(
    publicChain.endpoints.map((endpoint) => endpoint.url),
    publicChain,
    context,
  );
  return { urls: checkedNodes, publicChain, attempts };
}

/** What one public endpoint answered, as a person reads it. */
export interface EndpointAnswer {
  node: string;
  answer: string;
}

/**
 * A read through a node set: as `OnChainRead` for the user's nodes; for public endpoints, found or
 * not found only when at least two of different operators answered alike (`nodes` names them),
 * `disagreement` when two answered differently (nothing is picked), `unreachable` when fewer than
 * two answered usably.
 */
export type NodesRead<Found> =
  | { outcome: 'found'; value: Found; node: string; nodes?: string[]; attempts: NodeAttempt[] }
  | { outcome: 'notFound'; node: string; nodes?: string[]; attempts: NodeAttempt[] }
  | { outcome: 'unreachable'; attempts: NodeAttempt[]; detail?: string }
  | { outcome: 'unexpected'; attempts: NodeAttempt[] }
  | {
      outcome: 'disagreement';
      answers: EndpointAnswer[];
      attempts: NodeAttempt[];
      detail: string;
    };

export function readThrough<Found extends { found: true }>(
  nodes: ProvenNodeSet,
  request: unknown,
  decode: (reply: unknown) => Found | { found: false },
  options: JsonRpcOptions,
  /**
   * An answer that stands when endpoints of enough operators give it alike, whatever others
   * answer (a revocation: one endpoint saying "not revoked" must not hide one two operators prove).
   */
  standsAgreed?: (value: Found) => boolean,
): Promise<NodesRead<Found>> {
  return nodes.publicChain === undefined
    ? readOnChain(nodes.urls, request, decode, options)
    : readByAgreement(nodes.urls, nodes.publicChain, request, decode, options, standsAgreed);
}

/** The operator of a public endpoint of `chain`: endpoints of one operator count once. */
export const operatorOf = (chain: PublicChain, url: string): string =>
  chain.endpoints.find((endpoint) => endpoint.url === url)?.operator ?? url;

/** Whether the endpoints are of enough different operators for their agreement to count. */
export const enoughOperators = (chain: PublicChain, urls: readonly string[]): boolean =>
  new Set(urls.map((url) => operatorOf(chain, url))).size >= PUBLIC_ENDPOINT_QUORUM;

const answerKey = (value: unknown): string =>
  JSON.stringify(value, (_key, part: unknown) =>
    typeof part === 'bigint' ? part.toString() : part,
  );

/** A decoded answer in a few words: `not found`, or its fields. */
export function describeAnswer(value: { found: boolean }): string {
  if (!value.found) return 'not found';
  return Object.entries(value)
    .filter(([name]) => name !== 'found')
    .map(([name, part]) => `${name} ${String(part)}`)
    .join(', ');
}

/**
 * Asks every proven public endpoint at once and compares the answers: one endpoint could lie,
 * so none counts alone, and two that differ end the read rather than one being picked.
 */
async function readByAgreement<Found extends { found: true }>(
  urls: readonly string[],
  chain: PublicChain,
  request: unknown,
  decode: (reply: unknown) => Found | { found: false },
  options: JsonRpcOptions,
  standsAgreed?: (value: Found) => boolean,
): Promise<NodesRead<Found>> {
  const { usable, attempts } = await askEach(urls, request, decode, options);
  const answers = usable.map(({ url, value }) => ({ node: url, answer: describeAnswer(value) }));
  if (new Set(usable.map(({ value }) => answerKey(value))).size > 1) {
    const standing = usable.filter(
      (answer): answer is { url: string; value: Found } =>
        answer.value.found && standsAgreed?.(answer.value) === true,
    );
    for (const { value } of standing) {
      const alike = standing.filter((other) => answerKey(other.value) === answerKey(value));
      const nodes = alike.map(({ url }) => url);
      if (enoughOperators(chain, nodes)) {
        return { outcome: 'found', value, node: nodes[0] ?? '', nodes, attempts };
      }
    }
    return {
      outcome: 'disagreement',
      answers,
      attempts,
      detail: `the public endpoints of ${chain.name} disagree, so none is believed: ${answers.map(({ node, answer }) => `${node} answered ${answer}`).join('; ')}`,
    };
  }
  const agreed = usable.map(({ url }) => url);
  const [first] = usable;
  if (first === undefined || !enoughOperators(chain, agreed)) {
    return {
      outcome: 'unreachable',
      attempts,
      detail: `${first === undefined ? 'no public endpoint' : `only ${agreed.join(' and ')}, of one operator,`} of ${chain.name} proven to be on the chain answered: the answers of at least ${String(PUBLIC_ENDPOINT_QUORUM)} operators must agree`,
    };
  }
  return first.value.found
    ? { outcome: 'found', value: first.value, node: first.url, nodes: agreed, attempts }
    : { outcome: 'notFound', node: first.url, nodes: agreed, attempts };
}
