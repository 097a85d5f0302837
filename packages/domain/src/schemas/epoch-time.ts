import { LATEST_DATE_MILLIS } from '@trustpoint/verifier';
import { z } from 'zod';

// At most the last moment a date can name (year 275760): a later time could be stored but not
// shown, in the PDF, in verifiers or as an ISO date.

/** Milliseconds since the epoch: trustpoint timestamps, `issuedOn`, `expires`. */
export const epochMillisSchema = z
  .number()
  .int()
  .nonnegative()
  .max(LATEST_DATE_MILLIS, {
    error: `Must be at most ${String(LATEST_DATE_MILLIS)} (year 275760), in milliseconds since the epoch`,
  });

/** Seconds since the epoch: evidence (transaction) timestamps. */
export const epochSecondsSchema = z
  .number()
  .int()
  .nonnegative()
  .max(LATEST_DATE_MILLIS / 1000, {
    error: `Must be at most ${String(LATEST_DATE_MILLIS / 1000)} (year 275760), in seconds since the epoch`,
  });
