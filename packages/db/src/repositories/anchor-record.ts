/**
 * What the anchoring queue holds: a trustpoint of a certificate, an evidence of an asset, or a
 * certificate's revocation status (in the network's status registry, under `keccak256(certID)`).
 */
export type RecordKind = 'trustpoint' | 'evidence' | 'status';

export const RECORD_KINDS: readonly RecordKind[] = ['trustpoint', 'evidence', 'status'];

/** Where a queued record is: waiting, in a signed batch, on chain, withdrawn, or refused for good. */
export type AnchorStatus = 'queued' | 'batched' | 'anchored' | 'cancelled' | 'failed';

/** A record to anchor, as the APIs hand it over inside their own transaction. */
export interface AnchorRequest {
  networkId: string;
  kind: RecordKind;
  /**
   * `trustPointKey(certId, timestamp)`, `evidenceKey(assetHash, timestamp)` or, for a status,
   * `revocationStatusKey(certId)`: 0x + 64 hex.
   */
  recordKey: string;
  /** The record hash: 64 lowercase hex characters (a status: its Revocation trustpoint's hash). */
  hash: string;
  /**
   * The timestamp the key was derived from: a trustpoint's in milliseconds, an evidence's in
   * seconds. Batch registries file the record under its time bucket. A status: its Revocation
   * trustpoint's timestamp (ms), which the status registry records.
   */
  timestamp: number;
  /** Trustpoint type code (0 Evidence, 1 Revocation, 2 Signature); absent for evidences. */
  trustPointType?: 0 | 1 | 2;
  /**
   * The user who paid a credit for this record; if the chain refuses it for good (it ends
   * `failed`), the credit is given back in the same transaction. Absent for free records.
   */
  paidBy?: string;
}

/** A queued record as a batch takes it. */
export interface QueuedRecord {
  id: number;
  recordKey: string;
  hash: string;
  trustPointType: number | null;
  /** Null only for records queued before timestamps were kept and never linked to a row. */
  timestamp: number | null;
}

/** A record the chain refuses for good, and why. */
export interface RefusedRecord {
  recordId: number;
  reason: string;
}
