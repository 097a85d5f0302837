import {
  decodeRevocationOfResponse,
  revocationOfRequest,
  type RevocationStatus,
} from '../chain/revocation-status-lookup.js';
import type { NodeAttempt } from '../rpc/json-rpc-nodes.js';
import { publicChainFor } from '../rpc/public-endpoints.js';
import { networkPins, type PinnedNetwork } from '../trust/trust.js';
import { nodesOnChain, readThrough } from './node-reads.js';
import type { LookupContext } from './on-chain-read.js';
import { rpcUrlsFor } from './rpc-urls.js';
import { shownTime } from './shown-text.js';

/**
 * Whether a certificate is revoked on one network, read from the certID alone in the status
 * registry a trusted source pins for that network (`revocationOf(certId)`): one more `eth_call`,
 * so a copy saved before the revocation still finds it.
 * - `notRevoked`: a trusted status registry answered that no revocation is recorded;
 * - `revoked`: it holds a revocation, recorded at `revocation.recordedAt` by the chain's clock;
 * - `unchecked`: nothing you trust pins a status registry for the network, no node proved to be
 *   on it, the contract did not answer as a status registry, or the public endpoints asked in the
 *   absence of your own nodes disagreed: the revocation was not checked.
 */
export interface RevocationStatusCheck {
  networkId: number;
  outcome: 'notRevoked' | 'revoked' | 'unchecked';
  /** The status registry whose answer counts, when one answered. */
  statusRegistry?: string;
  /** Who pins it: `you` or a service origin. */
  trustedThrough?: string;
  /** The node whose answer was used. */
  node?: string;
  /** Public endpoints (you gave no node for the network): those whose answers agreed. */
  nodes?: string[];
  /** The revocation: its claimed timestamp (ms) and the chain's time it was recorded (ms). */
  revocation?: { timestamp: number; recordedAt: number };
  /** Nodes and registries asked before, and why their answer was not used. */
  attempts: NodeAttempt[];
  /** One sentence for a person. */
  detail: string;
}

/**
 * Reads a certificate's status on `networkId` from every status registry the trust pins there
 * (those of the sources that vouch for the certificate's Evidence first). A revocation in any of
 * them counts; "not revoked" counts only from a registry pinned by a source that vouches for the
 * Evidence (`vouchers`: another service's registry never holds this certificate's revocation),
 * whose nodes proved to be on the pinned chain and that no development account holds (unless this
 * machine pinned it).
 * Without a node of yours for the network, public endpoints of its chain (when given) are asked,
 * and an answer counts only when two of different operators agree.
 */
export async function checkRevocationStatus(
  certId: string,
  networkId: number,
  vouchers: readonly string[],
  context: LookupContext,
): Promise<RevocationStatusCheck> {
  const vouches = (pinnedBy: string) => vouchers.includes(pinnedBy);
  const pins = networkPins(context.trust, networkId).sort(
    (a, b) => Number(vouches(b.pinnedBy)) - Number(vouches(a.pinnedBy)),
  );
  const sources = pins.flatMap((network) =>
    network.registries
      .filter((registry) => registry.kind === 'statusRegistry')
      .map((registry) => ({ network, address: registry.address })),
  );
  const unchecked = (detail: string, attempts: NodeAttempt[] = []): RevocationStatusCheck => ({
    networkId,
    outcome: 'unchecked',
    attempts,
    detail: `revocation not checked: ${detail}`,
  });
  if (sources.length === 0) {
    return unchecked(
      pins.length === 0
        ? `nothing you trust pins network ${String(networkId)}`
        : `${[...new Set(pins.map((pin) => pin.pinnedBy))].join(' and ')} pin${pins.length === 1 ? 's' : ''} no status registry for network ${String(networkId)}`,
    );
  }
  if (
    rpcUrlsFor(context.rpc, networkId).length === 0 &&
    !sources.some(({ network }) => publicChainFor(context.publicEndpoints, network) !== undefined)
  ) {
    return unchecked(`no JSON-RPC URL given for network ${String(networkId)}`);
  }

  const attempts: NodeAttempt[] = [];
  let problem: string | undefined;
  let notRevoked: RevocationStatusCheck | undefined;
  for (const { network, address } of sources) {
    const answer = await readStatus(certId, network, address, context);
    attempts.push(...answer.attempts);
    problem ??= answer.problem;
    if (answer.status === undefined) continue;
    const found = {
      networkId,
      statusRegistry: address,
      trustedThrough: network.pinnedBy,
      node: answer.node,
      ...(answer.nodes === undefined ? {} : { nodes: answer.nodes }),
    };
    // A conclusive answer names the failures of its own registry's nodes, not those of other
    // pins of the network (another instance's chain, long gone).
    if (answer.status.revoked) {
      const { timestamp, recordedAt } = answer.status;
      return {
        ...found,
        outcome: 'revoked',
        revocation: { timestamp, recordedAt },
        attempts: answer.attempts,
        detail: `revoked: the status registry ${address} recorded the revocation at ${shownTime(recordedAt)} (chain time)`,
      };
    }
    if (!vouches(network.pinnedBy)) continue;
    notRevoked ??= {
      ...found,
      outcome: 'notRevoked',
      attempts: answer.attempts,
      detail: `not revoked: the status registry ${address} holds no revocation`,
    };
  }
  if (notRevoked !== undefined) return notRevoked;
  if (!sources.some(({ network }) => vouches(network.pinnedBy))) {
    return unchecked(
      vouchers.length === 0
        ? `no source you trust vouches for an Evidence on network ${String(networkId)}, so no status registry can say it is not revoked`
        : `${vouchers.join(' and ')}, which vouch${vouchers.length === 1 ? 'es' : ''} for its Evidence, pin${vouchers.length === 1 ? 's' : ''} no status registry for network ${String(networkId)}; another source's registry cannot say it is not revoked`,
      attempts,
    );
  }
  return unchecked(problem ?? 'no trusted status registry could be read', attempts);
}

/**
 * One status registry's answer through the nodes that prove to be on its pinned chain (public
 * endpoints: two operators agreeing; `problem` says how they differed, or that too few answered).
 */
async function readStatus(
  certId: string,
  network: PinnedNetwork,
  address: string,
  context: LookupContext,
): Promise<{
  status?: RevocationStatus;
  node?: string;
  nodes?: string[];
  attempts: NodeAttempt[];
  /** Why public endpoints gave no answer that counts (they disagreed, or too few answered). */
  problem?: string;
}> {
  const nodes = await nodesOnChain(network.networkId, network, context);
  const attempts = [...nodes.attempts];
  if (nodes.urls.length === 0) return { attempts };
  const read = await readThrough(
    nodes,
    revocationOfRequest({ statusRegistry: address, certId }),
    decodeRevocationOfResponse,
    context,
    // A revocation two operators prove stands, whatever another endpoint answers.
    (status) => status.revoked,
  );
  attempts.push(
    ...read.attempts.map((attempt) => ({ ...attempt, error: `${address}: ${attempt.error}` })),
  );
  if (read.outcome === 'disagreement' || (read.outcome === 'unreachable' && read.detail)) {
    return { attempts, problem: `the status registry ${address}: ${read.detail ?? ''}` };
  }
  if (read.outcome !== 'found') return { attempts };
  if (network.local !== true) {
    // Through public endpoints, any of those that agreed naming a development account counts.
    for (const url of read.nodes ?? [read.node]) {
      const problem = await context.developmentAccounts.problem(url, address);
      if (problem !== undefined) {
        attempts.push({ url, error: `${address}: ${problem}` });
        return { attempts };
      }
    }
  }
  return {
    status: read.value,
    node: read.node,
    ...(read.nodes === undefined ? {} : { nodes: read.nodes }),
    attempts,
  };
}
