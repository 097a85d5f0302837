import { defaultErrorCatalogue, type ErrorCatalogue, type ErrorCode } from './error-catalogue.js';
import type { ErrorBody, FieldError } from './error-body.js';

/** The response body for a catalogue code; `errors` is kept only for 400, as the spec defines it. */
export function toErrorBody(
  code: ErrorCode,
  options: { catalogue?: ErrorCatalogue; errors?: readonly FieldError[] } = {},
): ErrorBody {
  const { statusCode, type, message } = (options.catalogue ?? defaultErrorCatalogue)[code];
  const body: ErrorBody = { statusCode, type, message };
  if (statusCode === 400 && options.errors !== undefined) {
    body.errors = [...options.errors];
  }
  return body;
}
