import type { ErrorCode } from './error-catalogue.js';
import type { FieldError } from './error-body.js';

/**
 * A failure the service reports to its caller, named by catalogue code. Code below the HTTP layer
 * throws this; one error handler maps it through the catalogue, so status codes and messages are
 * never chosen ad hoc.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly code: ErrorCode;
  readonly errors: readonly FieldError[] | undefined;
  /** What the caller can do, shown on a 4xx other than 400 (see `toErrorBody`). */
  readonly hint: FieldError | undefined;
  /** When to come back, in seconds: the answer's `Retry-After` (a 503 of a busy network). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    options: {
      detail?: string;
      errors?: readonly FieldError[];
      hint?: FieldError;
      retryAfterSeconds?: number;
      cause?: unknown;
    } = {},
  ) {
    // `detail` is for logs; users see the catalogue message (and the hint, written for them).
    super(options.detail ?? code, { cause: options.cause });
    this.code = code;
    this.errors = options.errors;
    this.hint = options.hint;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
