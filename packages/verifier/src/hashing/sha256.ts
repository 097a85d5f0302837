import { sha256 as nobleSha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

/** SHA-256 of `bytes` as 64 lowercase hex characters, without `0x` (the form used everywhere). */
export function sha256(bytes: Uint8Array): string {
  return bytesToHex(nobleSha256(bytes));
}

/**
 * `sha256(sha256(bytes))` where the inner digest is fed as its raw 32 bytes, not as hex text:
 * hashing the hex would give a different, equally plausible value, so the rule is pinned here.
 */
export function doubleHash(bytes: Uint8Array): string {
  return sha256(sha256Digest(bytes));
}

/** The raw 32-byte SHA-256 digest. */
export function sha256Digest(bytes: Uint8Array): Uint8Array {
  return nobleSha256(bytes);
}

/** UTF-8 bytes of a string, the encoding every hashed sentence and canonical JSON text uses. */
export function utf8Bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
