import type { ApiScope, ErrorCatalogue, FieldError } from '@trustpoint/domain';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';

import { openApiErrorResponses } from './openapi-error-responses.js';

/** The OpenAPI extension that names the scope an operation requires. */
export const REQUIRED_SCOPE_EXTENSION = 'x-required-scope';

/**
 * An operation that requires `scope`: each bearer requirement of its `security` lists the scope
 * (OpenAPI 3.1 allows role names for any scheme), `x-required-scope` names it, the description
 * says so, and its 403 shows the `insufficientScope` body beside its other refusals. An anonymous
 * alternative (`{}`) stays as it is: a public read needs no token, but a token sent must hold the
 * scope.
 */
export function scopedOperation(
  operation: ZodOpenApiOperationObject,
  scope: ApiScope,
  catalogue: ErrorCatalogue,
  validationErrors: readonly FieldError[],
): ZodOpenApiOperationObject {
  const security = (operation.security ?? []).map((requirement) =>
    Object.fromEntries(Object.keys(requirement).map((scheme) => [scheme, [scope]])),
  );
  const added = openApiErrorResponses(catalogue, ['insufficientScope'], validationErrors)[
    '403'
  ] as ZodOpenApiResponseObject;
  const existing = operation.responses['403'] as ZodOpenApiResponseObject | undefined;
  const json = (response: ZodOpenApiResponseObject | undefined) =>
    response?.content?.['application/json'];
  const sentence =
    `Requires the scope \`${scope}\` when called with an API key or a token exchanged for ` +
    'one (403 `insufficientScope` otherwise, naming the scope).';
  return {
    ...operation,
    security,
    [REQUIRED_SCOPE_EXTENSION]: scope,
    description:
      operation.description === undefined ? sentence : `${operation.description} ${sentence}`,
    responses: {
      ...operation.responses,
      '403': {
        ...(existing ?? added),
        content: {
          'application/json': {
            ...json(existing ?? added),
            examples: { ...json(existing)?.examples, ...json(added)?.examples },
          },
        },
      },
    },
  };
}
