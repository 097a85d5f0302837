import { z } from 'zod';

import { DomainError } from './domain-error.js';
import type { ErrorBody } from './error-body.js';
import type { ErrorCatalogue } from './error-catalogue.js';
import { toErrorBody } from './to-error-body.js';
import { validationErrorBody } from './validation-error-body.js';

/**
 * The body for anything a request handler threw: a DomainError by its code, a ZodError as a 400,
 * and everything else masked as the generic 500 so internals never reach the caller.
 */
export function errorBodyFor(error: unknown, catalogue?: ErrorCatalogue): ErrorBody {
  if (error instanceof DomainError) {
    return toErrorBody(error.code, { catalogue, errors: error.errors });
  }
  if (error instanceof z.ZodError) {
    return validationErrorBody(error, { catalogue });
  }
  return toErrorBody('internal', { catalogue });
}
