import { defaultErrorCatalogue, type ErrorCatalogue, type ErrorCode } from './error-catalogue.js';
import type { ErrorBody, FieldError } from './error-body.js';

/**
 * The response body for a catalogue code; `errors` is kept only for 400, as the spec defines it.
 * A `hint` (what the caller can do: the scheme missing from Authorization, the size limit) is the
 * one entry of `errors` on another 4xx, written for the caller on purpose; never on a 5xx.
 */
export function toErrorBody(
  code: ErrorCode,
  options: { catalogue?: ErrorCatalogue; errors?: readonly FieldError[]; hint?: FieldError } = {},
): ErrorBody {
  const { statusCode, type, message } = (options.catalogue ?? defaultErrorCatalogue)[code];
  const body: ErrorBody = { statusCode, type, message };
  if (statusCode === 400 && options.errors !== undefined) {
    body.errors = [...options.errors];
  } else if (statusCode > 400 && statusCode < 500 && options.hint !== undefined) {
    body.errors = [options.hint];
  }
  return body;
}
