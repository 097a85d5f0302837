import { isHashHex } from '../hashing/hash-hex.js';

/**
 * Contracts store a hash as one 32-byte word; the API and `getTrustPoint` use 64 lowercase hex
 * characters. These convert between the two without changing a byte.
 */

/** One 32-byte word as JSON-RPC writes it (a hash on chain, a transaction hash): 0x and 64 hex digits. */
export const BYTES32_PATTERN = /^0x[0-9a-fA-F]{64}$/;

export function hashToBytes32(hash: string): string {
  if (!isHashHex(hash)) {
    throw new TypeError('A hash is 64 lowercase hex characters without 0x');
  }
  return `0x${hash}`;
}

export function bytes32ToHash(word: string): string {
  if (!BYTES32_PATTERN.test(word)) {
    throw new TypeError('A bytes32 word is 0x followed by 64 hex characters');
  }
  return word.slice(2).toLowerCase();
}
