import type { ErrorCatalogue, FieldError } from '@trustpoint/domain';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { openApiErrorResponses } from '../openapi-error-responses.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key-header.js';
import { DEFAULT_IDEMPOTENCY_SETTINGS } from './idempotency-settings.js';

/**
 * The `Idempotency-Key` request header of creating operations, stating how long keys are kept
 * (the service's `IDEMPOTENCY_KEY_RETENTION_HOURS`, 24 hours by default).
 */
export function idempotencyKeyHeaderSchemaFor(
  retentionMs: number = DEFAULT_IDEMPOTENCY_SETTINGS.retentionMs,
) {
  const hours = retentionMs / 3_600_000;
  return z.object({
    'idempotency-key': z
      .string()
      .min(1)
      .max(MAX_IDEMPOTENCY_KEY_LENGTH)
      .optional()
      .meta({
        description:
          'A key the client makes unique per request (a UUID), sent again unchanged with every ' +
          'retry of that request (IETF draft "The Idempotency-Key HTTP Header Field"; a bare ' +
          'value or a quoted string). Keys belong to the caller and this service keeps them ' +
          `${String(hours)} hour${hours === 1 ? '' : 's'} from their first request ` +
          '(`IDEMPOTENCY_KEY_RETENTION_HOURS`). A ' +
          'retry of the same request (method, path, query and body; for a file, the same parts ' +
          'and bytes) gets the first answer again, status, body and `Location`, with ' +
          '`Idempotent-Replayed: true`, and changes and spends nothing; a refusal (4xx) is answered ' +
          'again the same way, but after a 429 (a rate limit, or out of credits) or a 5xx, which ' +
          'changed nothing, the same request with the key runs again. The same key with another ' +
          'request, or sent by another credential (another API key of the caller, or a token ' +
          'with other scopes: an answer may hold a secret only its credential may read): 422; while the first request runs: 409 with `Retry-After`. ' +
          `At most ${String(MAX_IDEMPOTENCY_KEY_LENGTH)} printable ASCII characters (400 otherwise).`,
        example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
      }),
  });
}

/** The `Idempotency-Key` request header with the default retention. */
export const idempotencyKeyHeaderSchema = idempotencyKeyHeaderSchemaFor();

/**
 * An operation that takes `Idempotency-Key`: the header beside its others, its 409 (key in use,
 * with `Retry-After`) and 422 (key used for another request) answers beside its own.
 */
export function idempotentOperation(
  operation: ZodOpenApiOperationObject,
  catalogue: ErrorCatalogue,
  validationErrors: readonly FieldError[],
  /** How long the service keeps keys, stated in the header's description; 24 hours by default. */
  retentionMs?: number,
): ZodOpenApiOperationObject {
  const headerSchema = idempotencyKeyHeaderSchemaFor(retentionMs);
  const added = openApiErrorResponses(
    catalogue,
    ['idempotencyKeyInUse', 'idempotencyKeyReused'],
    validationErrors,
  );
  const inUse = added['409'] as ZodOpenApiResponseObject;
  const reused = added['422'] as ZodOpenApiResponseObject;
  const responses = { ...operation.responses };
  const existing = responses['409'] as ZodOpenApiResponseObject | undefined;
  const json = (response: ZodOpenApiResponseObject | undefined) =>
    response?.content?.['application/json'];
  responses['409'] = {
    ...(existing ?? inUse),
    description:
      existing === undefined
        ? inUse.description
        : `${existing.description} (or an Idempotency-Key in use)`,
    headers: {
      'Retry-After': {
        description:
          'Seconds to wait before retrying: sent when the first request with the same ' +
          '`Idempotency-Key` is still running',
        required: false,
        schema: { type: 'integer' },
      },
    },
    content: {
      'application/json': {
        ...json(existing ?? inUse),
        examples: { ...json(existing)?.examples, ...json(inUse)?.examples },
      },
    },
  };
  responses['422'] = reused;
  const header = operation.requestParams?.header;
  return {
    ...operation,
    requestParams: {
      ...operation.requestParams,
      header:
        header === undefined ? headerSchema : (header as z.ZodObject).extend(headerSchema.shape),
    },
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}
