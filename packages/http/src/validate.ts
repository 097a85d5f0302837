import { DomainError, fieldErrorsFromZod } from '@trustpoint/domain';
import type { z } from 'zod';

/**
 * The parsed value, or a 400 `validation` DomainError with one `errors` entry per problem (spec 7,
 * rule 1). `fieldPrefix` (`query`, `body`) tells the caller which part of the request is wrong.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  fieldPrefix?: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success && value === undefined && fieldPrefix === 'body') {
    // No JSON was parsed: the body is missing, or was sent without its Content-Type.
    throw new DomainError('validation', {
      detail: 'no JSON body',
      errors: [
        {
          field: 'body',
          error: 'A JSON body is required, sent with Content-Type: application/json',
        },
      ],
    });
  }
  if (!result.success) {
    throw new DomainError('validation', {
      detail: 'request validation failed',
      errors: fieldErrorsFromZod(result.error, fieldPrefix),
      cause: result.error,
    });
  }
  return result.data;
}
