import type { AssetRecord, EvidenceRecord } from '@trustpoint/db';
import {
  formatUserDid,
  overallAnchoringStatus,
  type Asset,
  type JsonObject,
  type Transaction,
} from '@trustpoint/domain';

/**
 * An evidence as the API shows it (spec 2.4, Transaction), with where it stands: an anchored one
 * is exactly what `getEvidence(assetHash, timestamp)` verifies on chain; a pending one
 * (acknowledged before its batch was mined) has no transaction yet; a failed one says why.
 */
export function transactionView(evidence: EvidenceRecord): Transaction {
  return {
    // Stored only after validation as a JSON object (and read back from jsonb), so it is one.
    metadata: evidence.metadata as JsonObject,
    timestamp: evidence.timestamp,
    userOwner: evidence.userOwner,
    hash: evidence.hash,
    status: evidence.status,
    ...(evidence.smartContract === null ? {} : { smartContract: evidence.smartContract }),
    ...(evidence.transactionHash === null ? {} : { transactionHash: evidence.transactionHash }),
    ...(evidence.failure === undefined ? {} : { failure: evidence.failure }),
  };
}

/**
 * A stored asset as the API shows it (spec 2.4), with its evidences oldest first; its status is
 * the least settled of them.
 */
export function assetView(record: AssetRecord): Asset {
  return {
    trackID: record.trackId,
    assetId: record.assetId,
    data: record.data as JsonObject,
    networkId: Number(record.networkId),
    assetHash: record.assetHash,
    hashVersion: record.hashVersion,
    owner: formatUserDid(record.userId),
    transactions: record.evidences.map(transactionView),
    status: overallAnchoringStatus(record.evidences.map((evidence) => evidence.status)),
  };
}
