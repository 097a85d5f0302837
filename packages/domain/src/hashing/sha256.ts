import { createHash } from 'node:crypto';

/** SHA-256 of `bytes` as 64 lowercase hex characters, without `0x` (the form used everywhere). */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
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
  return createHash('sha256').update(bytes).digest();
}

/** UTF-8 bytes of a string, the encoding every hashed sentence and canonical JSON text uses. */
export function utf8Bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
