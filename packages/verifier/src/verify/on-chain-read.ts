import { UnexpectedEthCallResponseError } from '../chain/unexpected-eth-call-response-error.js';
import { askNodes, type JsonRpcOptions, type NodeAttempt } from '../rpc/json-rpc-nodes.js';
import { NodeIdentityCheck } from '../rpc/node-identity.js';
import { DevelopmentAccountCheck } from '../trust/development-accounts.js';
import { announcedSuccessors } from '../trust/registry-successors.js';
import {
  findRegistryPin,
  networkPins,
  type PinnedNetwork,
  type PinnedRegistry,
  type RegistryKind,
  type Trust,
} from '../trust/trust.js';
import { rpcUrlsFor, type RpcUrls } from './rpc-urls.js';

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
  /** What kind of registry it must be to be trusted. */
  registryKind: RegistryKind;
  /** What names the contract: `certificate` or `evidence`. */
  holder: string;
  /** What the contract is: `registry` or `repository`. */
  contract: string;
  /** The lookup key as people read it, e.g. `(certID, 1767225600000)`. */
  key: string;
}

/** What a verification shares between its lookups: the trust and the checks already made. */
export interface LookupContext extends JsonRpcOptions {
  rpc: RpcUrls;
  trust?: Trust | undefined;
  identity: NodeIdentityCheck;
  developmentAccounts: DevelopmentAccountCheck;
}

export function lookupContext(
  options: JsonRpcOptions & { rpc: RpcUrls; trust?: Trust | undefined },
): LookupContext {
  return {
    ...options,
    identity: new NodeIdentityCheck(options),
    developmentAccounts: new DevelopmentAccountCheck(options),
  };
}

/** Whether the contract read is one the verifier trusts, and through whom. */
export type RegistryTrust =
  | { trusted: true; network: PinnedNetwork; registry: PinnedRegistry }
  | { trusted: false; reason: string };

/**
 * The lookup of one record before any hash is compared: the record the nodes hold (with whether
 * its registry is trusted), or the verdict that ends its check (not anchored yet, no node, not
 * found). A registry nobody pinned is still read, so that the verdict can say what it holds, but
 * such a record is never more than `untrusted`.
 */
export type RecordLookup<Found> =
  | {
      outcome: 'found';
      value: Found;
      answered: { node: string; attempts: NodeAttempt[] };
      registryTrust: RegistryTrust;
      /** The nodes that proved to be on the pinned chain, the answering one first. */
      checkedNodes: string[];
    }
  | {
      outcome: 'pending' | 'unreachable' | 'unexpected' | 'notFound';
      detail: string;
      more: { node?: string; attempts?: NodeAttempt[] };
    };

export async function lookUpRecord<Found extends { found: true }>(
  target: RecordTarget,
  request: (smartContract: string) => unknown,
  decode: (reply: unknown) => Found | { found: false },
  context: LookupContext,
): Promise<RecordLookup<Found>> {
  const { networkId, smartContract } = target;
  if (smartContract === undefined) {
    const detail = `not anchored yet: the ${target.holder} names no contract to ask`;
    return { outcome: 'pending', detail, more: {} };
  }
  const pins = networkPins(context.trust, networkId);
  const urls = rpcUrlsFor(context.rpc, networkId);
  const pin =
    findRegistryPin(context.trust, networkId, target.registryKind, smartContract) ??
    (await announcedPin(pins, target.registryKind, smartContract, urls, context));
  const registryTrust: RegistryTrust =
    pin !== undefined
      ? { trusted: true, ...pin }
      : {
          trusted: false,
          reason:
            pins.length === 0
              ? `nothing you trust pins network ${String(networkId)}: the ${target.contract} ${smartContract} is named only by the ${target.holder}`
              : `the ${target.contract} ${smartContract} is not one that ${[...new Set(pins.map((p) => p.pinnedBy))].join(' or ')} pins for network ${String(networkId)}`,
        };
  if (urls.length === 0) {
    const detail = `no JSON-RPC URL given for network ${String(networkId)}`;
    return { outcome: 'unreachable', detail, more: {} };
  }
  // Nodes answer only once they proved to be on the pinned chain (the record's pin, else any pin
  // of the network): a node of another chain with the same id could answer anything.
  const { checkedNodes, attempts } = await provenNodes(urls, pin?.network ?? pins[0], context);
  if (checkedNodes.length === 0) {
    const detail = `no node proved to be on network ${String(networkId)}`;
    return { outcome: 'unreachable', detail, more: { attempts } };
  }
  const read = await readOnChain(checkedNodes, request(smartContract), decode, context);
  const allAttempts = [...attempts, ...read.attempts];
  if (read.outcome === 'unreachable' || read.outcome === 'unexpected') {
    const detail =
      read.outcome === 'unreachable'
        ? 'no node answered'
        : 'the nodes answered with neither a record nor the not-found revert';
    return { outcome: read.outcome, detail, more: { attempts: allAttempts } };
  }
  const answered = { node: read.node, attempts: allAttempts };
  if (read.outcome === 'notFound') {
    const detail = `no record for ${target.key} on this contract`;
    return { outcome: 'notFound', detail, more: answered };
  }
  return {
    outcome: 'found',
    value: read.value,
    answered,
    registryTrust,
    checkedNodes: [read.node, ...checkedNodes.filter((url) => url !== read.node)],
  };
}

/**
 * The nodes, in the order given, that prove to be on the pinned chain (`eth_chainId` and the
 * genesis block's hash), and why the others were refused. Without a pinned chain (nothing pins
 * the network) every node is kept: what they answer is then never more than untrusted.
 */
export async function provenNodes(
  urls: readonly string[],
  chain: PinnedNetwork | undefined,
  context: LookupContext,
): Promise<{ checkedNodes: string[]; attempts: NodeAttempt[] }> {
  const attempts: NodeAttempt[] = [];
  const checkedNodes: string[] = [];
  for (const url of urls) {
    const refused = chain === undefined ? undefined : await context.identity.check(url, chain);
    if (refused === undefined) checkedNodes.push(url);
    else attempts.push({ url, error: refused });
  }
  return { checkedNodes, attempts };
}

/**
 * A registry no pin names, trusted because a pinned registry of the same kind announced it on
 * chain as its next generation (directly or through announced successors): how a service moves
 * to a new registry without its users pinning again. Asked through nodes that prove to be on the
 * pinned chain only.
 */
async function announcedPin(
  pins: readonly PinnedNetwork[],
  kind: RegistryKind,
  address: string,
  urls: readonly string[],
  context: LookupContext,
): Promise<{ network: PinnedNetwork; registry: PinnedRegistry } | undefined> {
  for (const network of pins) {
    for (const registry of network.registries) {
      if (registry.kind !== kind) continue;
      for (const url of urls) {
        if ((await context.identity.check(url, network)) !== undefined) continue;
        const successors = await announcedSuccessors(url, registry.address, context);
        if (successors.includes(address.toLowerCase())) {
          return { network, registry: { kind, address } };
        }
        break;
      }
    }
  }
  return undefined;
}
