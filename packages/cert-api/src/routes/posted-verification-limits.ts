/** What bounds `POST /trustpoints/verification`, which anyone may call without a token. */
export interface PostedVerificationLimits {
  /** Posted copies one client address may have checked per minute; beyond, 429 with Retry-After. */
  perMinute: number;
  /**
   * Posted copies checked at once in one process; as many more wait their turn (at most
   * `POSTED_VERIFICATION_MAX_WAIT_MS`), any other is a 503 with Retry-After.
   */
  atOnce: number;
}

/**
 * 30 a minute per address: a holder checks a copy now and then, a page of a verifier portal a few
 * times a minute. 4 at once per process: each copy lists at most 64 trustpoints, every one a few
 * node reads (a 64-trustpoint copy took 2 to 3.5 s on a loaded 2-core machine), so four leave the
 * node and the event loop to the other routes and to `/healthz`.
 */
export const DEFAULT_POSTED_VERIFICATION_LIMITS: Readonly<PostedVerificationLimits> = Object.freeze(
  { perMinute: 30, atOnce: 4 },
);

/** How long a posted copy waits for its turn before the 503. */
export const POSTED_VERIFICATION_MAX_WAIT_MS = 5_000;
/** The `Retry-After` of that 503, in seconds. */
export const POSTED_VERIFICATION_RETRY_AFTER_SECONDS = 2;

/** The limits with the defaults filled in; one that is not a positive integer stops start-up. */
export function postedVerificationLimits(
  given: Partial<PostedVerificationLimits> = {},
): PostedVerificationLimits {
  const limits = { ...DEFAULT_POSTED_VERIFICATION_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(
        `postedVerifications.${name} must be a positive integer, got ${String(value)}`,
      );
    }
  }
  return limits;
}
