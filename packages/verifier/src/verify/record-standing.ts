import { findRecordWrite, type RecordToFind, type RecordWrite } from '../chain/record-write.js';
import { PUBLIC_ENDPOINT_QUORUM } from '../rpc/public-endpoints.js';
import { isInRange } from '../trust/trust.js';
import { shownTime } from './shown-text.js';
import { enoughOperators, type ProvenNodeSet } from './node-reads.js';
import type { LookupContext, RegistryTrust } from './on-chain-read.js';

/** When the chain says a record was written: its block, by the chain's own clock. */
export interface ChainTime {
  blockNumber: number;
  blockHash: string;
  /** The block's timestamp, milliseconds since the epoch (a multiple of 1,000). */
  timestamp: number;
  /** The node that gave the receipt and the block. */
  node: string;
}

/**
 * What stands behind a record found on chain with the expected hash: whether the registry is
 * trusted (pinned, not a development account's, written within its trusted blocks) and when it
 * was written. `trusted` is the only standing a verified verdict accepts. Read through public
 * endpoints, the receipt must be told alike by two operators (`disagreement` otherwise).
 */
export type RecordStanding =
  | {
      standing: 'trusted';
      chainTime: ChainTime;
      /** Who the registry is trusted through: the pin it was read under. */
      pinnedBy: string;
      /**
       * Every source whose pin holds this record: the pin it was read under, then each other pin
       * of the same registry whose chain the answering node is on and whose blocks hold the
       * write. An issuing origin vouches for a record only when it is one of these.
       */
      vouchedBy: string[];
    }
  | { standing: 'untrusted'; detail: string; chainTime?: ChainTime }
  | { standing: 'untimed'; detail: string }
  | { standing: 'unreachable'; detail: string }
  | { standing: 'disagreement'; detail: string };

export async function establishStanding(
  record: RecordToFind,
  transactionHash: string | undefined,
  registryTrust: RegistryTrust,
  checkedNodes: ProvenNodeSet,
  context: LookupContext,
): Promise<RecordStanding> {
  const write =
    transactionHash === undefined
      ? undefined
      : await findWrite(checkedNodes, transactionHash, record, context);
  if (write?.outcome === 'disagreement') return { standing: 'disagreement', detail: write.detail };
  const chainTime: ChainTime | undefined =
    write?.outcome === 'written'
      ? {
          blockNumber: write.blockNumber,
          blockHash: write.blockHash,
          timestamp: write.blockTime * 1000,
          node: write.node,
        }
      : undefined;
  // An untrusted registry is untrusted whatever its receipts say: a forger's contract can emit
  // any event. Its time is shown when it can be read, as a claim of that contract.
  if (!registryTrust.trusted) {
    return {
      standing: 'untrusted',
      detail: registryTrust.reason,
      ...(chainTime === undefined ? {} : { chainTime }),
    };
  }
  if (write === undefined) {
    return { standing: 'untimed', detail: 'it names no transaction: the chain cannot date it' };
  }
  if (write.outcome === 'unreachable') return { standing: 'unreachable', detail: write.detail };
  if (write.outcome === 'notWritten' || chainTime === undefined) {
    return {
      standing: 'untimed',
      detail: `${write.outcome === 'notWritten' ? write.detail : 'not written'}: the chain cannot date it`,
    };
  }
  const { network, registry } = registryTrust;
  if (!isInRange(registry, write.blockNumber)) {
    return {
      standing: 'untrusted',
      detail: `written in block ${String(write.blockNumber)}, outside the blocks ${network.pinnedBy} trusts ${registry.address} for (${String(registry.fromBlock ?? 0)} to ${registry.toBlock === undefined ? 'now' : String(registry.toBlock)})`,
      chainTime,
    };
  }
  if (network.local !== true) {
    const problem = await developmentHolder(checkedNodes, registry.address, context);
    if (problem !== undefined) {
      return {
        standing: 'untrusted',
        detail: `the registry ${registry.address}: ${problem}`,
        chainTime,
      };
    }
  }
  const vouchedBy = [network.pinnedBy];
  for (const other of registryTrust.alsoPinned ?? []) {
    if (vouchedBy.includes(other.network.pinnedBy)) continue;
    if (!isInRange(other.registry, write.blockNumber)) continue;
    if ((await context.identity.check(write.node, other.network)) !== undefined) continue;
    if (
      other.network.local !== true &&
      (await developmentHolder(checkedNodes, registry.address, context)) !== undefined
    ) {
      continue;
    }
    vouchedBy.push(other.network.pinnedBy);
  }
  return { standing: 'trusted', chainTime, pinnedBy: network.pinnedBy, vouchedBy };
}

/**
 * The receipt of the record's transaction: from every node given, which must tell the same block
 * (`findRecordWrite`); through public endpoints, from every endpoint that agreed on the record,
 * of enough operators.
 */
async function findWrite(
  nodes: ProvenNodeSet,
  transactionHash: string,
  record: RecordToFind,
  context: LookupContext,
): Promise<RecordWrite | { outcome: 'disagreement'; detail: string }> {
  const chain = nodes.publicChain;
  if (chain === undefined) return findRecordWrite(nodes.urls, transactionHash, record, context);
  const writes = await Promise.all(
    nodes.urls.map((url) => findRecordWrite([url], transactionHash, record, context)),
  );
  const told = writes.flatMap((write, index) =>
    write.outcome === 'unreachable' ? [] : [{ url: nodes.urls[index] ?? '', write }],
  );
  const said = ({ write }: (typeof told)[number]) =>
    write.outcome === 'written'
      ? `block ${String(write.blockNumber)} (${write.blockHash}) at ${shownTime(write.blockTime * 1000)}`
      : write.detail;
  if (new Set(told.map(said)).size > 1) {
    return {
      outcome: 'disagreement',
      detail: `the public endpoints of ${chain.name} tell different receipts of ${transactionHash}, so none is believed: ${told.map((one) => `${one.url}: ${said(one)}`).join('; ')}`,
    };
  }
  const [first] = told;
  if (
    first === undefined ||
    !enoughOperators(
      chain,
      told.map(({ url }) => url),
    )
  ) {
    const failed = writes.flatMap((write) =>
      write.outcome === 'unreachable' ? [write.detail] : [],
    );
    return {
      outcome: 'unreachable',
      detail: `fewer than ${String(PUBLIC_ENDPOINT_QUORUM)} operators' public endpoints of ${chain.name} gave the receipt${failed.length === 0 ? '' : ` (${failed.join('; ')})`}`,
    };
  }
  return first.write;
}

/**
 * A development account holding the registry (or a registry that cannot show who holds it), as
 * any node proven on the chain says (yours or public endpoints): one hiding it is not believed.
 */
async function developmentHolder(
  nodes: ProvenNodeSet,
  registry: string,
  context: LookupContext,
): Promise<string | undefined> {
  for (const url of nodes.urls) {
    const problem = await context.developmentAccounts.problem(url, registry);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * What a standing means for a record's verdict: the verdict that ends its check (with the chain's
 * time when known), or, for a trusted record, what its verification gains: the chain's time and
 * whom the registry is trusted through. The same for trustpoints and evidences.
 */
export type StandingOutcome =
  | {
      verdict: 'unreachable' | 'untimed' | 'untrusted' | 'disagreement';
      detail: string;
      more: { chainTime?: ChainTime };
    }
  | {
      verdict: undefined;
      more: { chainTime: ChainTime; trustedThrough: string; vouchedBy: string[] };
    };

export function standingOutcome(standing: RecordStanding): StandingOutcome {
  switch (standing.standing) {
    case 'unreachable':
    case 'untimed':
    case 'disagreement':
      return { verdict: standing.standing, detail: standing.detail, more: {} };
    case 'untrusted':
      return {
        verdict: 'untrusted',
        detail: `on chain as the rules say, but not trusted: ${standing.detail}`,
        more: standing.chainTime === undefined ? {} : { chainTime: standing.chainTime },
      };
    case 'trusted':
      return {
        verdict: undefined,
        more: {
          chainTime: standing.chainTime,
          trustedThrough: standing.pinnedBy,
          vouchedBy: standing.vouchedBy,
        },
      };
  }
}
