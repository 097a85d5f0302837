import { canonicalJsonBytes, type JsonObject } from './canonical-json.js';
import { doubleHash } from './sha256.js';

/** Asset-tracking hash rules (DESIGN.md section 3). */

export interface AssetHashInput {
  assetId: string;
  data: JsonObject;
}

/** `assetHash = doubleHash(JCS({assetId, data}))`. */
export function assetHash({ assetId, data }: AssetHashInput): string {
  return doubleHash(canonicalJsonBytes({ assetId, data }));
}

export interface EvidenceHashInput {
  metadata: JsonObject;
  /** Seconds since the epoch, as recorded for the evidence. */
  timestamp: number;
  /** `did:user:<sub>` of the owner. */
  userOwner: string;
}

/** Evidence `hash = doubleHash(JCS({metadata, timestamp, userOwner}))`. */
export function evidenceHash({ metadata, timestamp, userOwner }: EvidenceHashInput): string {
  return doubleHash(canonicalJsonBytes({ metadata, timestamp, userOwner }));
}
