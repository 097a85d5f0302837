import { RecordReader, type EvidenceRead } from '@trustpoint/chain';
import {
  findAssetsByIds,
  findEvidencesByHash,
  type AssetRecord,
  type EvidenceRecord,
  type User,
} from '@trustpoint/db';
import {
  DomainError,
  evidenceExplorerVerification,
  type ExplorerVerification,
} from '@trustpoint/domain';
import { canRead } from './readable-asset.js';
import type { TrackServices } from './track-services.js';

/** How one evidence compares with what the chain holds under (assetHash, timestamp). */
export type EvidenceCheck = 'match' | 'mismatch' | 'notFound' | 'unreachable' | 'pending';

export interface EvidenceVerification {
  trackID: string;
  assetHash: string;
  networkId: number;
  smartContract: string | null;
  transactionHash: string | null;
  timestamp: number;
  userOwner: string;
  hash: string;
  /** What `getEvidence(assetHash, timestamp)` returned, when the node answered and found it. */
  onChain: { hash: string } | null;
  hashMatches: boolean;
  status: EvidenceCheck;
  /**
   * Verification method 2 by hand: links to the transaction and to the contract's read page on the
   * network's block explorer, and what to type there. Null without an explorer or before anchoring.
   */
  explorer: ExplorerVerification | null;
}

export interface EvidencesVerification {
  hash: string;
  /** Every evidence with this hash is on chain with it. */
  verified: boolean;
  /** Usually one: the hash does not cover the asset, so the same metadata, second and owner on
   * two assets gives two. */
  evidences: EvidenceVerification[];
}

const reader = new RecordReader();

function checkOf(
  asset: AssetRecord,
  evidence: EvidenceRecord,
  explorerUrl: string | undefined,
  read: EvidenceRead | undefined,
): EvidenceVerification {
  const explorer = evidenceExplorerVerification({
    explorerUrl,
    smartContract: evidence.smartContract,
    transactionHash: evidence.transactionHash,
    assetHash: evidence.assetHash,
    timestamp: evidence.timestamp,
    hash: evidence.hash,
  });
  const base = {
    trackID: asset.trackId,
    assetHash: evidence.assetHash,
    networkId: Number(evidence.networkId),
    smartContract: evidence.smartContract,
    transactionHash: evidence.transactionHash,
    timestamp: evidence.timestamp,
    userOwner: evidence.userOwner,
    hash: evidence.hash,
    explorer: explorer ?? null,
  };
  if (read === undefined) return { ...base, onChain: null, hashMatches: false, status: 'pending' };
  if (read.found !== true) {
    const status = read.found === false ? 'notFound' : 'unreachable';
    return { ...base, onChain: null, hashMatches: false, status };
  }
  const hashMatches = read.hash === evidence.hash;
  return {
    ...base,
    onChain: { hash: read.hash },
    hashMatches,
    status: hashMatches ? 'match' : 'mismatch',
  };
}

async function readOnChain(
  services: TrackServices,
  evidence: EvidenceRecord,
): Promise<EvidenceRead | undefined> {
  if (evidence.transactionHash === null) return undefined;
  const network = services.networks.get(evidence.networkId);
  return network
    ? reader.readEvidence(
        network,
        evidence.assetHash,
        evidence.timestamp,
        // The repository that anchored it, which stays its home if the network moves on.
        evidence.smartContract ?? undefined,
      )
    : { found: 'unreachable', detail: `network ${evidence.networkId} is not configured` };
}

/**
 * Verification method 1 for an evidence, by its hash: reads it back from its network with the same
 * `eth_call` an outside verifier makes and compares. Only evidences of assets the caller may read
 * count; with none, 404. Evidences not yet anchored are reported as pending rather than read.
 */
export async function verifyEvidence(
  services: TrackServices,
  user: User,
  hash: string,
): Promise<EvidencesVerification> {
  const evidences = await findEvidencesByHash(services.knex, hash);
  const assets = new Map(
    (
      await findAssetsByIds(services.knex, [...new Set(evidences.map((e) => e.asset))], {
        withEvidences: false,
      })
    )
      .filter((asset) => canRead(asset, user))
      .map((asset) => [asset.id, asset]),
  );
  const readable = evidences.flatMap((evidence) => {
    const asset = assets.get(evidence.asset);
    return asset ? [{ asset, evidence }] : [];
  });
  if (readable.length === 0) throw new DomainError('notFound');
  const checks = await Promise.all(
    readable.map(async ({ asset, evidence }) =>
      checkOf(
        asset,
        evidence,
        services.networks.get(evidence.networkId)?.explorerUrl,
        await readOnChain(services, evidence),
      ),
    ),
  );
  return {
    hash,
    verified: checks.every((check) => check.status === 'match'),
    evidences: checks,
  };
}
