import { keccak256 } from 'ethers';

import { isHashHex } from '../schemas/hash-hex.js';
import { toUint256 } from './uint256.js';

/**
 * Storage key of a record, as the contracts compute it:
 * `keccak256(abi.encodePacked(string id, uint256 timestamp))`, i.e. the UTF-8 id followed by the
 * timestamp as a 32-byte big-endian word. Returned as 0x-prefixed bytes32 hex.
 */
function recordKey(id: string, timestamp: bigint): string {
  // Packed by hand: ethers' solidityPacked goes through hex strings, a cost paid per request.
  const packed = Buffer.concat([
    Buffer.from(id, 'utf8'),
    Buffer.from(timestamp.toString(16).padStart(64, '0'), 'hex'),
  ]);
  return keccak256(packed);
}

/** Key of a trustpoint: the certID and the trustpoint timestamp in milliseconds. */
export function trustPointKey(certId: string, timestampMs: number | bigint): string {
  return recordKey(certId, toUint256(timestampMs, 'timestamp'));
}

/** Key of an evidence: the assetHash (hex text) and the evidence timestamp in seconds. */
export function evidenceKey(assetHash: string, timestampSeconds: number | bigint): string {
  if (!isHashHex(assetHash)) {
    throw new TypeError('An assetHash is 64 lowercase hex characters without 0x');
  }
  return recordKey(assetHash, toUint256(timestampSeconds, 'timestamp'));
}
