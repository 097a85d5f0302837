import {
  trustPointTypeCode,
  type TrustPointTypeCode,
  type TrustPointTypeName,
} from '../trustpoint/trustpoint-type.js';
import { hashToBytes32 } from './bytes32.js';
import { evidenceKey, trustPointKey } from './record-key.js';

/** Arguments of `registerTrustPoint(s)`: one record as the contract stores it. */
export interface TrustPointRecord {
  key: string;
  hash: string;
  trustPointType: TrustPointTypeCode;
}

/** Arguments of `registerEvidence(s)`. */
export interface EvidenceRecord {
  key: string;
  hash: string;
}

export function toTrustPointRecord(input: {
  certId: string;
  timestampMs: number | bigint;
  trustPointHash: string;
  type: TrustPointTypeName;
}): TrustPointRecord {
  return {
    key: trustPointKey(input.certId, input.timestampMs),
    hash: hashToBytes32(input.trustPointHash),
    trustPointType: trustPointTypeCode(input.type),
  };
}

export function toEvidenceRecord(input: {
  assetHash: string;
  timestampSeconds: number | bigint;
  evidenceHash: string;
}): EvidenceRecord {
  return {
    key: evidenceKey(input.assetHash, input.timestampSeconds),
    hash: hashToBytes32(input.evidenceHash),
  };
}
