import type { z } from 'zod';

import type { ErrorCatalogue } from './error-catalogue.js';
import type { ErrorBody, FieldError } from './error-body.js';
import { toErrorBody } from './to-error-body.js';

export interface ValidationErrorOptions {
  catalogue?: ErrorCatalogue;
  /** Prepended to every field path, e.g. `query` or `body`, when one request has several parts. */
  pathPrefix?: string;
}

/** Field name used for a problem with the value as a whole (e.g. the body is not an object). */
export const ROOT_FIELD = '(root)';

/** One `{field, error}` per zod issue, the field being the issue's dotted path (`data.0.name`). */
export function fieldErrorsFromZod(error: z.ZodError, pathPrefix?: string): FieldError[] {
  return error.issues.map((issue) => {
    const segments = [...(pathPrefix === undefined ? [] : [pathPrefix]), ...issue.path.map(String)];
    return { field: segments.length > 0 ? segments.join('.') : ROOT_FIELD, error: issue.message };
  });
}

/** The 400 body for a failed validation (spec 7, rule 1). */
export function validationErrorBody(
  error: z.ZodError,
  options: ValidationErrorOptions = {},
): ErrorBody {
  return toErrorBody('validation', {
    catalogue: options.catalogue,
    errors: fieldErrorsFromZod(error, options.pathPrefix),
  });
}
