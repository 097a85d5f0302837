import type { NodeAttempt } from '../rpc/json-rpc-nodes.js';
import { announcedSuccessors } from '../trust/registry-successors.js';
import {
  networkPins,
  type PinnedNetwork,
  type PinnedRegistry,
  type RegistryKind,
} from '../trust/trust.js';
import type { LookupContext } from './lookup-context.js';
import {
  enoughOperators,
  nodesOnChain,
  readThrough,
  type EndpointAnswer,
  type ProvenNodeSet,
} from './node-reads.js';

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

export { lookupContext, type LookupContext } from './lookup-context.js';

/** Whether the contract read is one the verifier trusts, and through whom. */
export type RegistryTrust =
  | {
      trusted: true;
      network: PinnedNetwork;
      registry: PinnedRegistry;
      /**
       * Other pins naming the same registry on the network (several sources may pin it): each
       * vouches for the record too only if the node that answered proves to be on its chain, and
       * the record was written within its blocks (`establishStanding` checks).
       */
      alsoPinned?: readonly { network: PinnedNetwork; registry: PinnedRegistry }[];
    }
  | { trusted: false; reason: string };

/**
 * The lookup of one record before any hash is compared: the record the nodes hold (with whether
 * its registry is trusted), or the verdict that ends its check (not anchored yet, no node, not
 * found, public endpoints that disagree). A registry nobody pinned is still read, so that the
 * verdict can say what it holds, but such a record is never more than `untrusted`.
 */
export type RecordLookup<Found> =
  | {
      outcome: 'found';
      value: Found;
      /** `nodes`: the public endpoints whose answers agreed, when the user gave no node. */
      answered: { node: string; nodes?: string[]; attempts: NodeAttempt[] };
      registryTrust: RegistryTrust;
      /** The nodes that proved to be on the pinned chain, the answering ones first. */
      checkedNodes: ProvenNodeSet;
    }
  | {
      outcome: 'pending' | 'unreachable' | 'unexpected' | 'notFound' | 'disagreement';
      detail: string;
      more: {
        node?: string;
        nodes?: string[];
        answers?: EndpointAnswer[];
        attempts?: NodeAttempt[];
      };
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
  // Every pin naming the registry: two instances pinned on this machine may have deployed at the
  // same addresses on two chains of one chain id, and the record is on one of them only.
  const named = pins.flatMap((network) =>
    network.registries
      .filter(
        (registry) =>
          registry.kind === target.registryKind &&
          registry.address.toLowerCase() === smartContract.toLowerCase(),
      )
      .map((registry) => ({ network, registry })),
  );
  const announced =
    named.length > 0
      ? undefined
      : await announcedPin(pins, target.registryKind, smartContract, networkId, context);
  const candidates = named.length > 0 ? named : announced === undefined ? [] : [announced];
  if (candidates.length === 0) {
    const reason =
      pins.length === 0
        ? `nothing you trust pins network ${String(networkId)}: the ${target.contract} ${smartContract} is named only by the ${target.holder}`
        : `the ${target.contract} ${smartContract} is not one that ${[...new Set(pins.map((p) => p.pinnedBy))].join(' or ')} pins for network ${String(networkId)}`;
    const { lookup } = await lookUpOn(
      pins[0],
      { trusted: false, reason },
      target,
      request(smartContract),
      decode,
      context,
    );
    return lookup;
  }
  // The first pin whose chain holds the record; else what the first one whose nodes answered says.
  let answered: RecordLookup<Found> | undefined;
  let first: RecordLookup<Found> | undefined;
  for (const pin of candidates) {
    const alsoPinned = candidates.filter((other) => other !== pin);
    const { lookup, reached } = await lookUpOn(
      pin.network,
      { trusted: true, ...pin, ...(alsoPinned.length === 0 ? {} : { alsoPinned }) },
      target,
      request(smartContract),
      decode,
      context,
    );
    if (lookup.outcome === 'found') return lookup;
    first ??= lookup;
    if (reached) answered ??= lookup;
  }
  return (answered ?? first) as RecordLookup<Found>;
}

/**
 * Reads the record through the nodes that prove to be on `chain` (the registry's pin, else any
 * pin of the network): a node of another chain with the same id could answer anything.
 * `reached`: whether a node proved to be on that chain.
 */
async function lookUpOn<Found extends { found: true }>(
  chain: PinnedNetwork | undefined,
  registryTrust: RegistryTrust,
  target: RecordTarget,
  request: unknown,
  decode: (reply: unknown) => Found | { found: false },
  context: LookupContext,
): Promise<{ lookup: RecordLookup<Found>; reached: boolean }> {
  const { networkId } = target;
  const nodes = await nodesOnChain(networkId, chain, context);
  if (nodes.nobody !== undefined) {
    return { lookup: { outcome: 'unreachable', detail: nodes.nobody, more: {} }, reached: false };
  }
  if (nodes.urls.length === 0) {
    const which =
      nodes.publicChain === undefined ? '' : ` (public endpoints of ${nodes.publicChain.name})`;
    return {
      lookup: {
        outcome: 'unreachable',
        detail: `no node proved to be on network ${String(networkId)}${which}`,
        more: { attempts: nodes.attempts },
      },
      reached: false,
    };
  }
  const read = await readThrough(nodes, request, decode, context);
  const attempts = [...nodes.attempts, ...read.attempts];
  const done = (lookup: RecordLookup<Found>) => ({ lookup, reached: true });
  switch (read.outcome) {
    case 'unreachable':
      return done({
        outcome: 'unreachable',
        detail: read.detail ?? 'no node answered',
        more: { attempts },
      });
    case 'unexpected':
      return done({
        outcome: 'unexpected',
        detail: 'the nodes answered with neither a record nor the not-found revert',
        more: { attempts },
      });
    case 'disagreement':
      return done({
        outcome: 'disagreement',
        detail: read.detail,
        more: { answers: read.answers, attempts },
      });
    case 'notFound': {
      const agreed = read.nodes === undefined ? '' : ` (${read.nodes.join(' and ')} agree)`;
      return done({
        outcome: 'notFound',
        detail: `no record for ${target.key} on this contract${agreed}`,
        more: {
          node: read.node,
          ...(read.nodes === undefined ? {} : { nodes: read.nodes }),
          attempts,
        },
      });
    }
    case 'found':
      return done({
        outcome: 'found',
        value: read.value,
        answered: {
          node: read.node,
          ...(read.nodes === undefined ? {} : { nodes: read.nodes }),
          attempts,
        },
        registryTrust,
        // Later reads (the receipt, the registry's roles) go to the nodes that answered first;
        // public endpoints: to those that agreed, which must agree again.
        checkedNodes: {
          ...nodes,
          urls: read.nodes ?? [read.node, ...nodes.urls.filter((url) => url !== read.node)],
          attempts: [],
        },
      });
  }
}

/**
 * A registry no pin names, trusted because a pinned registry of the same kind announced it on
 * chain as its next generation (directly or through announced successors): how a service moves
 * to a new registry without its users pinning again. Asked through nodes that prove to be on the
 * pinned chain only; public endpoints must all name it, two operators at least.
 */
async function announcedPin(
  pins: readonly PinnedNetwork[],
  kind: RegistryKind,
  address: string,
  networkId: number | string,
  context: LookupContext,
): Promise<{ network: PinnedNetwork; registry: PinnedRegistry } | undefined> {
  for (const network of pins) {
    const pinned = network.registries.filter((registry) => registry.kind === kind);
    if (pinned.length === 0) continue;
    const nodes = await nodesOnChain(networkId, network, context);
    const [firstNode] = nodes.urls;
    if (firstNode === undefined) continue;
    for (const registry of pinned) {
      const lists =
        nodes.publicChain === undefined
          ? [await announcedSuccessors(firstNode, registry.address, context)]
          : enoughOperators(nodes.publicChain, nodes.urls)
            ? await Promise.all(
                nodes.urls.map((url) => announcedSuccessors(url, registry.address, context)),
              )
            : [];
      const wanted = address.toLowerCase();
      if (lists.length === 0 || !lists.every((list) => list.includes(wanted))) continue;
      // Away from this machine's own pin, an announcement counts only when every registry that
      // made it (the pinned one, and each successor before this one) shows that no development
      // account holds it: with such a registry anybody could announce a successor of their own.
      const [list = []] = lists;
      const announcers = [registry.address, ...list.slice(0, list.indexOf(wanted))];
      if (network.local !== true && (await heldAnnouncer(nodes.urls, announcers, context))) {
        continue;
      }
      return { network, registry: { kind, address } };
    }
  }
  return undefined;
}

/** Whether any of the announcing registries is held by a development account (or cannot show). */
async function heldAnnouncer(
  urls: readonly string[],
  announcers: readonly string[],
  context: LookupContext,
): Promise<boolean> {
  for (const announcer of announcers) {
    for (const url of urls) {
      if ((await context.developmentAccounts.problem(url, announcer)) !== undefined) return true;
    }
  }
  return false;
}
