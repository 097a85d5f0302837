import type { ErrorBody } from '@trustpoint/domain';

/**
 * The 429 for request flooding. The catalogue's only 429 is "out of credits", which would tell a
 * caller with credits left to contact support, so this body is a local addition to the catalogue
 * (same shape, spec 7.1).
 */
export const TOO_MANY_REQUESTS_BODY: Readonly<ErrorBody> = Object.freeze({
  statusCode: 429,
  type: 'Too Many Requests Error',
  message: 'Too many requests, please try again later',
});

/**
 * Thrown by `rateLimit` and by use cases that limit attempts (PINs), so the error handler stays
 * the one place that writes error responses. With `retryAfterSeconds` the answer says when to come
 * back (`Retry-After`).
 */
export class TooManyRequestsError extends Error {
  override readonly name = 'TooManyRequestsError';
  readonly retryAfterSeconds: number | undefined;

  constructor(detail: string, options: { retryAfterSeconds?: number } = {}) {
    super(`rate limit exceeded: ${detail}`);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
