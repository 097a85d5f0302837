import type { AssetRecord, EvidenceRecord } from '@trustpoint/db';
import type { Asset, JsonObject, Transaction } from '@trustpoint/domain';

/**
 * An evidence as the API shows it (spec 2.4, Transaction), or undefined while it is not anchored:
 * every transaction shown is exactly what `getEvidence(assetHash, timestamp)` verifies on chain.
 */
export function transactionView(evidence: EvidenceRecord): Transaction | undefined {
  if (evidence.smartContract === null || evidence.transactionHash === null) return undefined;
  return {
    // Stored only after validation as a JSON object (and read back from jsonb), so it is one.
    metadata: evidence.metadata as JsonObject,
    timestamp: evidence.timestamp,
    userOwner: evidence.userOwner,
    hash: evidence.hash,
    smartContract: evidence.smartContract,
    transactionHash: evidence.transactionHash,
  };
}

/** A stored asset as the API shows it (spec 2.4), with its anchored evidences oldest first. */
export function assetView(record: AssetRecord): Asset {
  return {
    trackID: record.trackId,
    assetId: record.assetId,
    data: record.data as JsonObject,
    networkId: Number(record.networkId),
    assetHash: record.assetHash,
    transactions: record.evidences.flatMap((evidence) => transactionView(evidence) ?? []),
  };
}
