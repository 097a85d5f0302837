import { z } from 'zod';

/** Every hash in the service: SHA-256 as 64 lowercase hex characters, no `0x`. */
export const HASH_HEX_PATTERN = /^[0-9a-f]{64}$/;

export const hashHexSchema = z
  .string()
  .regex(HASH_HEX_PATTERN, 'Expected 64 lowercase hexadecimal characters without 0x');

export function isHashHex(value: string): boolean {
  return HASH_HEX_PATTERN.test(value);
}
