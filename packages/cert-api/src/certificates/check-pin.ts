import { prunePinFailures, releasePinAttempt, reservePinAttempt } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { TooManyRequestsError } from '@trustpoint/http';
import type { CertificateServices } from './certificate-services.js';
import { pinAttemptLimits } from './pin-attempt-limits.js';

/** A reader's try at a certificate's PIN: what they sent, and the address it came from. */
export interface PinAttempt {
  pin: string | undefined;
  /** The client address per-address limits count (`clientAddress(req)`). */
  address: string;
}

/**
 * Passes when `attempt.pin` is the certificate's PIN, within the limits on failures: 403
 * `pinRequired` for a missing or wrong PIN, and 429 with `Retry-After` once the certificate's or the
 * address's failures reach their limit, even for the right PIN (a 200 among the 429s would still
 * tell the PIN). The attempt is counted before the PIN is compared and given back when it is right,
 * so concurrent guesses, on any number of processes sharing the database, cannot pass the limit.
 */
export async function checkPin(
  services: CertificateServices,
  certificate: { id: string; certId: string; pinEncrypted: string },
  attempt: PinAttempt,
): Promise<void> {
  // No PIN is no guess: nothing to count.
  if (attempt.pin === undefined) throw new DomainError('pinRequired', { detail: 'no PIN' });
  const limits = pinAttemptLimits(services.pinAttempts);
  const now = services.now();
  const { windowMs } = limits;
  const reservation = await reservePinAttempt(
    services.knex,
    [
      { scope: 'certificate', subject: certificate.id, limit: limits.perCertificate, windowMs },
      { scope: 'address', subject: attempt.address, limit: limits.perAddress, windowMs },
    ],
    now,
  );
  if (!reservation.granted) {
    throw new TooManyRequestsError(`failed PIN attempts on ${certificate.certId}`, {
      retryAfterSeconds: Math.max(1, Math.ceil((reservation.retryAt - now) / 1_000)),
    });
  }
  if (reservation.startedWindow) await pruneEndedWindows(services, now);
  if (!services.pins.matches(attempt.pin, certificate.pinEncrypted)) {
    throw new DomainError('pinRequired', { detail: 'wrong PIN' });
  }
  await releasePinAttempt(services.knex, reservation.held);
}

/**
 * Ended windows are deleted whenever a new one starts, so the table holds about one row per
 * certificate and address tried within a window. A failure here costs only a later prune.
 */
async function pruneEndedWindows(services: CertificateServices, now: number): Promise<void> {
  try {
    await prunePinFailures(services.knex, now);
  } catch (error) {
    services.logger.warn({ err: error }, 'pruning ended PIN failure windows failed');
  }
}
