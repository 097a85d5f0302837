import { isHashHex } from './hash-hex.js';
import { doubleHash, utf8Bytes } from './sha256.js';

/**
 * What `getTrustPoint` returns as `hash` (and `metadata[].trustPointHash`), per trustpoint type.
 */

/** Evidence: the certificate's own `data.hash`, unchanged. */
export function evidenceTrustPointHash(certificateHash: string): string {
  if (!isHashHex(certificateHash)) {
    throw new TypeError('A certificate hash is 64 lowercase hex characters without 0x');
  }
  return certificateHash;
}

/** The exact sentence whose double hash marks a revocation; any other spacing is another hash. */
export function revocationSentence(certId: string): string {
  return `Certificate ${certId} has been revoked`;
}

/** Revocation: `doubleHash(utf8("Certificate <certID> has been revoked"))`. */
export function revocationTrustPointHash(certId: string): string {
  return doubleHash(utf8Bytes(revocationSentence(certId)));
}

/** Signature: `doubleHash(signature bytes)`. */
export function signatureTrustPointHash(signature: Uint8Array): string {
  return doubleHash(signature);
}
