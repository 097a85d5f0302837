import { HASH_HEX_PATTERN } from '@trustpoint/verifier';
import { z } from 'zod';

/** Every hash in the service: SHA-256 as 64 lowercase hex characters, no `0x`. */
export { HASH_HEX_PATTERN, isHashHex } from '@trustpoint/verifier';

export const hashHexSchema = z
  .string()
  .regex(HASH_HEX_PATTERN, 'Expected 64 lowercase hexadecimal characters without 0x')
  .meta({
    description: 'SHA-256, 64 lowercase hexadecimal characters',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  });
