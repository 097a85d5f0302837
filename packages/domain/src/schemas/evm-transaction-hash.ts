import { z } from 'zod';

/** A blockchain transaction identifier: 0x and 64 hex characters. */
export const evmTransactionHashSchema = z
  .string()
  .regex(
    /^0x[0-9a-fA-F]{64}$/,
    'Expected a transaction hash: 0x followed by 64 hexadecimal characters',
  );
