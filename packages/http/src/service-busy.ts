import type { ErrorBody } from '@trustpoint/domain';

/**
 * The 503 of work a process already does as much of as it takes at once (`ConcurrencyLimit`):
 * nothing was done, come back after `Retry-After`. A local addition to the catalogue (same shape,
 * spec 7.1), beside its 503 for a database or a network that cannot be reached.
 */
export const SERVICE_BUSY_BODY: Readonly<ErrorBody> = Object.freeze({
  statusCode: 503,
  type: 'Service Unavailable Error',
  message: 'The service is busy, please try again shortly',
});

/** Carries `SERVICE_BUSY_BODY` to the error handler, which answers `Retry-After`. */
export class ServiceBusyError extends Error {
  override readonly name = 'ServiceBusyError';
  readonly retryAfterSeconds: number;

  constructor(detail: string, options: { retryAfterSeconds: number }) {
    super(`busy: ${detail}`);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
