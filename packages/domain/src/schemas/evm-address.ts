import { z } from 'zod';

/** A contract address: 0x and 40 hex characters (checksummed or not). */
export const evmAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'Expected an address: 0x followed by 40 hexadecimal characters');
