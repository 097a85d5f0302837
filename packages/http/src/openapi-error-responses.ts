import {
  errorBodySchema,
  toErrorBody,
  type ErrorBody,
  type ErrorCatalogue,
  type ErrorCode,
  type FieldError,
} from '@trustpoint/domain';
import { TOO_MANY_REQUESTS_BODY } from './too-many-requests.js';
import type { ZodOpenApiExampleObject, ZodOpenApiResponsesObject } from 'zod-openapi';

/**
 * What every route can answer: a request target or body that cannot be read (400: not
 * percent-decodable, not JSON, not decompressible; the body is parsed before any route), a body
 * over the limit (413), and an unexpected failure.
 */
const ALWAYS: readonly ErrorCode[] = ['validation', 'payloadTooLarge', 'internal'];

/** The `Retry-After` of a busy network's 503 (`networkBusy`): the time its queue takes to drain. */
const NETWORK_BUSY_HEADERS = {
  'Retry-After': {
    description:
      "Set on `networkBusy`: seconds until the network's queue has drained under its limit at " +
      'the rate its chain takes records (at least 1). Nothing was stored; send the same request ' +
      'again then (with the same `Idempotency-Key`, which a 503 gives up)',
    required: false,
    schema: { type: 'integer' as const, minimum: 1 },
  },
};

function exampleOf(
  code: ErrorCode,
  catalogue: ErrorCatalogue,
  validationErrors: readonly FieldError[],
): ZodOpenApiExampleObject {
  const value: ErrorBody = toErrorBody(code, {
    catalogue,
    ...(code === 'validation' ? { errors: [...validationErrors] } : {}),
  });
  return { summary: value.message, value };
}

/**
 * The error responses of an operation (spec section 7): one response per status, with the error
 * body schema and, as examples, the catalogue's exact messages for the codes the operation can
 * answer. 429 always lists the rate limit's body too, and 400, 413 and 500 are always there.
 * `validationErrors` shows what a 400's `errors[]` looks like for the API documented.
 */
export function openApiErrorResponses(
  catalogue: ErrorCatalogue,
  codes: readonly ErrorCode[],
  validationErrors: readonly FieldError[],
): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, Record<string, ZodOpenApiExampleObject>>();
  for (const code of [...codes, ...ALWAYS]) {
    const { statusCode } = catalogue[code];
    byStatus.set(statusCode, {
      ...byStatus.get(statusCode),
      [code]: exampleOf(code, catalogue, validationErrors),
    });
  }
  byStatus.set(429, {
    ...byStatus.get(429),
    tooManyRequests: { summary: TOO_MANY_REQUESTS_BODY.message, value: TOO_MANY_REQUESTS_BODY },
  });

  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, examples] of [...byStatus].sort(([a], [b]) => a - b)) {
    const first = Object.values(examples)[0]?.value as ErrorBody | undefined;
    // Catalogue statuses are 4xx and 5xx.
    responses[`${status}` as `${4 | 5}${string}`] = {
      description: first?.type ?? 'Error',
      ...(status === 503 && codes.includes('networkBusy') ? { headers: NETWORK_BUSY_HEADERS } : {}),
      content: { 'application/json': { schema: errorBodySchema, examples } },
    };
  }
  return responses;
}
