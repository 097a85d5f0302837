import { keccak_256 } from '@noble/hashes/sha3';

import { isHashHex } from '../hashing/hash-hex.js';
import { toHex0x } from './hex.js';
import { toUint256 } from './uint256.js';

/**
 * Storage key of a record, as the contracts compute it:
 * `keccak256(abi.encodePacked(string id, uint256 timestamp))`, i.e. the UTF-8 id followed by the
 * timestamp as a 32-byte big-endian word. Returned as 0x-prefixed bytes32 hex.
 */
function recordKey(id: string, timestamp: bigint): string {
  const idBytes = new TextEncoder().encode(id);
  const packed = new Uint8Array(idBytes.length + 32);
  packed.set(idBytes, 0);
  let rest = timestamp;
  for (let index = packed.length - 1; index >= idBytes.length && rest > 0n; index -= 1) {
    packed[index] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return toHex0x(keccak_256(packed));
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

/**
 * Key of a certificate's revocation status in a status registry: `keccak256(bytes(certId))`, what
 * its `revocationKey(certId)` answers. Derived from the certID alone, so a verifier holding the
 * certificate as issued finds a revocation made after it.
 */
export function revocationStatusKey(certId: string): string {
  return toHex0x(keccak_256(new TextEncoder().encode(certId)));
}
