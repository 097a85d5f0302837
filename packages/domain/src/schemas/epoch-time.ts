import { z } from 'zod';

/**
 * The last moment a date can name (ECMAScript's time range, year 275760): a later time could be
 * stored but not shown, in the PDF, in verifiers or as an ISO date.
 */
export const LATEST_EPOCH_MILLIS = 8_640_000_000_000_000;

/** Milliseconds since the epoch: trustpoint timestamps, `issuedOn`, `expires`. */
export const epochMillisSchema = z
  .number()
  .int()
  .nonnegative()
  .max(LATEST_EPOCH_MILLIS, {
    error: `Must be at most ${String(LATEST_EPOCH_MILLIS)} (year 275760), in milliseconds since the epoch`,
  });

/** Seconds since the epoch: evidence (transaction) timestamps. */
export const epochSecondsSchema = z
  .number()
  .int()
  .nonnegative()
  .max(LATEST_EPOCH_MILLIS / 1000, {
    error: `Must be at most ${String(LATEST_EPOCH_MILLIS / 1000)} (year 275760), in seconds since the epoch`,
  });
