/** Every hash in the service: SHA-256 as 64 lowercase hex characters, no `0x`. */
export const HASH_HEX_PATTERN = /^[0-9a-f]{64}$/;

export function isHashHex(value: string): boolean {
  return HASH_HEX_PATTERN.test(value);
}
