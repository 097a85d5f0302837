import { ConcurrencyLimit } from '@trustpoint/http';

/**
 * PDFs made at once in one process (`GET /certificates/{type}/{id}/pdf`, which anyone may ask of
 * a public certificate): each is a verification on the service's node and a rendering. As many
 * more wait their turn (at most `CERTIFICATE_PDF_MAX_WAIT_MS`), any other is a 503 with
 * Retry-After, so that PDFs cannot take the node or the event loop from `/healthz` and the rest.
 */
export const DEFAULT_CERTIFICATE_PDFS_AT_ONCE = 4;
/** How long a PDF waits for its turn before the 503. */
export const CERTIFICATE_PDF_MAX_WAIT_MS = 5_000;
/** The `Retry-After` of that 503, in seconds. */
export const CERTIFICATE_PDF_RETRY_AFTER_SECONDS = 2;

/** The bound on PDFs at once; one that is not a positive integer stops start-up. */
export function certificatePdfLimit(atOnce = DEFAULT_CERTIFICATE_PDFS_AT_ONCE): ConcurrencyLimit {
  return new ConcurrencyLimit({
    name: 'certificate PDFs',
    running: atOnce,
    waiting: atOnce,
    maxWaitMs: CERTIFICATE_PDF_MAX_WAIT_MS,
    retryAfterSeconds: CERTIFICATE_PDF_RETRY_AFTER_SECONDS,
  });
}
