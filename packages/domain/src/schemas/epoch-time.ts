import { z } from 'zod';

/** Milliseconds since the epoch: trustpoint timestamps, `issuedOn`, `expires`. */
export const epochMillisSchema = z.number().int().nonnegative();

/** Seconds since the epoch: evidence (transaction) timestamps. */
export const epochSecondsSchema = z.number().int().nonnegative();
