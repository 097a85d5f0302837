/** When failed deliveries are tried again. */
export interface RetrySchedule {
  /** The wait after the first failed attempt; each later wait doubles it. Default 10 s. */
  initialDelayMs: number;
  /** The longest wait between two attempts. Default 2 hours. */
  maxDelayMs: number;
  /** How long after the event (or a redelivery) attempts go on; then it has failed. Default 1 day. */
  retryForMs: number;
}

export const DEFAULT_RETRY_SCHEDULE: Readonly<RetrySchedule> = Object.freeze({
  initialDelayMs: 10_000,
  maxDelayMs: 2 * 3_600_000,
  retryForMs: 24 * 3_600_000,
});

/**
 * The wait before attempt `attempts + 1`, after `attempts` failed ones: exponential, capped, with
 * up to 10% random extra so endpoints that failed together are not all retried in one instant.
 * 10 s, 20 s, 40 s, ... reaches the 2-hour cap at the 11th retry; a day allows about 20 attempts.
 */
export function retryDelayMs(
  attempts: number,
  schedule: RetrySchedule,
  random: () => number = Math.random,
): number {
  const exponential = schedule.initialDelayMs * 2 ** Math.max(0, attempts - 1);
  const delay = Math.min(exponential, schedule.maxDelayMs);
  return Math.round(delay * (1 + random() * 0.1));
}
