/** How many wrong PINs are answered (403) before the certificate API answers 429. */
export interface PinAttemptLimits {
  /** Wrong PINs one certificate takes per window, from all addresses together. */
  perCertificate: number;
  /** Wrong PINs one client address may send per window, over all certificates. */
  perAddress: number;
  /** Milliseconds. A window starts with the first attempt counted against it. */
  windowMs: number;
}

/**
 * 10 wrong PINs per certificate per hour: trying the 10,000 PINs of 4 digits takes 1,000 hours
 * (six weeks; three on average), whatever the number of addresses. 50 per address per hour stop
 * one address from trying a few likely PINs on many certificates.
 */
export const DEFAULT_PIN_ATTEMPT_LIMITS: Readonly<PinAttemptLimits> = Object.freeze({
  perCertificate: 10,
  perAddress: 50,
  windowMs: 3_600_000,
});

/** The limits with the defaults filled in; a limit that is not a positive integer stops start-up. */
export function pinAttemptLimits(given: Partial<PinAttemptLimits> = {}): PinAttemptLimits {
  const limits = { ...DEFAULT_PIN_ATTEMPT_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`pinAttempts.${name} must be a positive integer, got ${String(value)}`);
    }
  }
  return limits;
}
