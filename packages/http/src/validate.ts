import { DomainError, fieldErrorsFromZod, textProblem, type FieldError } from '@trustpoint/domain';
import type { z } from 'zod';

/** The field of a missing JSON body, and what to do about it. */
const NO_JSON_BODY: FieldError = {
  field: 'body',
  error: 'A JSON body is required, sent with Content-Type: application/json',
};

/**
 * A path parameter holding U+0000, which no stored text can hold, named `path.<name>`: checked
 * here, where the route's parameter names are known, rather than on the whole path before routing.
 */
function pathParameterProblems(params: unknown): FieldError[] {
  if (typeof params !== 'object' || params === null) return [];
  const problems: FieldError[] = [];
  for (const [name, value] of Object.entries(params)) {
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    if (problem !== undefined) problems.push({ field: `path.${name}`, error: problem });
  }
  return problems;
}

/** The problems of one part of a request, each field under the part's name (`query.networkId`). */
function partProblems<S extends z.ZodType>(
  schema: S,
  value: unknown,
  fieldPrefix: string | undefined,
):
  | { ok: true; data: z.output<S> }
  | { ok: false; detail: string; errors: FieldError[]; cause?: z.ZodError } {
  if (fieldPrefix === 'path') {
    const unstorable = pathParameterProblems(value);
    if (unstorable.length > 0) {
      return { ok: false, detail: 'unstorable path parameter', errors: unstorable };
    }
  }
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, data: result.data };
  // No JSON was parsed: the body is missing, or was sent without its Content-Type.
  if (value === undefined && fieldPrefix === 'body')
    return { ok: false, detail: 'no JSON body', errors: [NO_JSON_BODY] };
  return {
    ok: false,
    detail: 'request validation failed',
    errors: fieldErrorsFromZod(result.error, fieldPrefix),
    cause: result.error,
  };
}

/**
 * The parsed value, or a 400 `validation` DomainError with one `errors` entry per problem (spec 7,
 * rule 1). `fieldPrefix` (`query`, `body`) tells the caller which part of the request is wrong.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  fieldPrefix?: string,
): z.output<S> {
  const part = partProblems(schema, value, fieldPrefix);
  if (part.ok) return part.data;
  throw new DomainError('validation', {
    detail: part.detail,
    errors: part.errors,
    cause: part.cause,
  });
}

/** One part of a request (its query, path or body) and the schema it must satisfy. */
export type RequestPart = readonly [schema: z.ZodType, value: unknown];

/** What `validateRequest` gives back: each part parsed by its schema, under its name. */
export type ValidatedRequest<P extends Record<string, RequestPart>> = {
  [K in keyof P]: z.output<P[K][0]>;
};

/**
 * Validates every part of a request at once: each parsed under its name, or one 400 `validation`
 * DomainError listing the problems of every part together (spec 7, rule 1), each field named by
 * its part (`query.networkId`, `body.content.x`, `path.trackID`). `problems` are further ones the
 * caller found that no schema can know of (an unconfigured network, a time already past): they
 * are reported with the others.
 */
export function validateRequest<P extends Record<string, RequestPart>>(
  parts: P,
  problems: readonly FieldError[] = [],
): ValidatedRequest<P> {
  const errors: FieldError[] = [];
  const causes: z.ZodError[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [name, [schema, value]] of Object.entries(parts)) {
    const part = partProblems(schema, value, name);
    if (part.ok) parsed[name] = part.data;
    else {
      errors.push(...part.errors);
      if (part.cause !== undefined) causes.push(part.cause);
    }
  }
  errors.push(...problems);
  if (errors.length > 0) {
    throw new DomainError('validation', {
      detail: 'request validation failed',
      errors,
      cause: causes[0],
    });
  }
  return parsed as ValidatedRequest<P>;
}
