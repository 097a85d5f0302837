import { errorBodySchema, type ApiScope, type ErrorCode } from '@trustpoint/domain';
import { z } from 'zod';
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';

import { API_KEYS_PATH } from './api-keys-router.js';
import { API_KEY_PREFIX } from './api-key-format.js';
import { CLIENT_TOKEN_TTL_SECONDS } from './identities.js';
import {
  apiKeyIdParamsSchema,
  apiKeyListResponse,
  apiKeyResponse,
  changeApiKeyScopesBodySchema,
  createApiKeyBodySchema,
  createdApiKeyResponse,
  oauthErrorSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from './identity-schemas.js';
import { DEFAULT_TOKEN_FAILURES_PER_MINUTE, TOKEN_ENDPOINT_PATH } from './token-endpoint-router.js';

export interface IdentityPathsOptions {
  /** The API's tag for these operations. */
  tag: string;
  /** The bearer security requirement of the API's document. */
  security: oas31.SecurityRequirementObject[];
  /** The API's error responses for these catalogue codes (and 500). */
  errors: (...codes: ErrorCode[]) => ZodOpenApiResponsesObject;
  /** Documents `Idempotency-Key` on the changing operations (the API's `idempotentOperation`). */
  idempotent?: (operation: ZodOpenApiOperationObject) => ZodOpenApiOperationObject;
  /** Documents the scope an operation requires (the API's `scopedOperation`). */
  scoped: (operation: ZodOpenApiOperationObject, scope: ApiScope) => ZodOpenApiOperationObject;
}

/** Name of the security scheme of the token endpoint (HTTP Basic with the key id and the key). */
export const CLIENT_BASIC_SCHEME = 'clientBasic';

/** The security schemes these paths use besides the API's bearer scheme. */
export const IDENTITY_SECURITY_SCHEMES: Record<string, oas31.SecuritySchemeObject> = {
  [CLIENT_BASIC_SCHEME]: {
    type: 'http',
    scheme: 'basic',
    description: 'User name: the API key id; password: the API key',
  },
};

/** What the bearer scheme accepts, for the API document's `bearerAuth` description. */
export const BEARER_TOKENS_DESCRIPTION =
  "A JWT of the service (admin CLI, launcher, or this API's token endpoint), a JWT of a configured " +
  `OpenID Connect provider, or an API key (\`${API_KEY_PREFIX}...\`) itself.`;

export const IDENTITY_TAG_DESCRIPTION =
  'API keys for machine clients, and the OAuth 2.0 client-credentials token endpoint that ' +
  'exchanges a key for a short-lived token. The same keys from either API.';

const OAUTH_ERRORS =
  'Errors are RFC 6749 section 5.2 bodies `{error, error_description}`: `invalid_request` (400; ' +
  'no `grant_type`, not a form, credentials sent two ways), `unsupported_grant_type` (400), ' +
  '`invalid_scope` (400; a scope the key lacks, or that this service does not know), ' +
  '`invalid_client` (401 with `WWW-Authenticate: Basic`; missing, unknown, revoked or expired ' +
  `key, or a client_id that is not the key's). After ${String(DEFAULT_TOKEN_FAILURES_PER_MINUTE)} ` +
  'failed requests in a minute from one address, or naming one client_id, further failing ' +
  'requests of either are answered 429 (with `Retry-After`) until the minute ends; a valid ' +
  "credential is always granted, whatever others' failures.";

/** The identity operations, for the documents of both APIs. */
export function identityPaths(options: IdentityPathsOptions): ZodOpenApiPathsObject {
  const auth = ['missingToken', 'expiredToken', 'invalidToken', 'wrongCredentials'] as const;
  // Every operation on keys needs the `keys` scope, reads included: keys are credentials.
  const operation = (op: ZodOpenApiOperationObject): ZodOpenApiOperationObject =>
    options.scoped({ tags: [options.tag], security: options.security, ...op }, 'keys');
  const oauthError = (description: string) => ({
    description,
    content: { 'application/json': { schema: oauthErrorSchema } },
  });
  return {
    [API_KEYS_PATH]: {
      post: (options.idempotent ?? ((op: ZodOpenApiOperationObject) => op))(
        operation({
          operationId: 'createApiKey',
          summary: 'Make an API key',
          description:
            'The answer carries the key, shown only here: the service keeps its SHA-256 only. ' +
            `Send it as \`Authorization: Bearer ${API_KEY_PREFIX}...\`, or exchange it at ` +
            `\`${TOKEN_ENDPOINT_PATH}\` for a short-lived token. A user has at most 20 active keys. ` +
            'A key made with an API key (or a token exchanged for one) is its child: it has no ' +
            'scope the parent lacks (403 `insufficientScope` naming them), expires no later, and ' +
            'is revoked with it.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: createApiKeyBodySchema } },
          },
          responses: {
            201: {
              description: 'Made',
              content: { 'application/json': { schema: createdApiKeyResponse } },
            },
            ...options.errors('validation', ...auth),
          },
        }),
      ),
      get: operation({
        operationId: 'listApiKeys',
        summary: "The caller's API keys",
        description: 'Keys not revoked, newest first, never the keys themselves.',
        responses: {
          200: {
            description: 'The keys',
            content: { 'application/json': { schema: apiKeyListResponse } },
          },
          ...options.errors(...auth),
        },
      }),
    },
    [`${API_KEYS_PATH}/{keyId}`]: {
      get: operation({
        operationId: 'getApiKey',
        summary: 'One of the caller’s API keys',
        requestParams: { path: apiKeyIdParamsSchema },
        responses: {
          200: {
            description: 'The key',
            content: { 'application/json': { schema: apiKeyResponse } },
          },
          ...options.errors('validation', 'notFound', ...auth),
        },
      }),
      patch: (options.idempotent ?? ((op: ZodOpenApiOperationObject) => op))(
        operation({
          operationId: 'changeApiKeyScopes',
          summary: 'Narrow what an API key may do',
          description:
            "Sets the key's scopes to some of those it has: a scope it lacks is a 403 " +
            '`insufficientScope` naming it (only an administrator can add scopes). Every key ' +
            'made with it (its children, theirs, ...) is narrowed in the same transaction to ' +
            'what both allow, and one left with no scope is revoked, so no key is ever wider ' +
            'than the key it was made with. From the next request on, in every process: the ' +
            "key, and every token exchanged for it, may do only what the key's scopes now " +
            'allow (a token never more than its own `scope` either). Setting the scopes the key ' +
            'has changes nothing. A revoked or expired key is a 400.',
          requestParams: { path: apiKeyIdParamsSchema },
          requestBody: {
            required: true,
            content: { 'application/json': { schema: changeApiKeyScopesBodySchema } },
          },
          responses: {
            200: {
              description: 'Changed; the key as it is now',
              content: { 'application/json': { schema: apiKeyResponse } },
            },
            ...options.errors('validation', 'notFound', ...auth),
          },
        }),
      ),
      delete: operation({
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          'At once, in every process of the service: the next request with the key, or with a ' +
          'token exchanged for it, is a 401 "Token is invalid". Every key made with it (its ' +
          'children, theirs, ...) is revoked with it, in the same transaction.',
        requestParams: { path: apiKeyIdParamsSchema },
        responses: {
          200: {
            description: 'Revoked; the key as it is now',
            content: { 'application/json': { schema: apiKeyResponse } },
          },
          ...options.errors('validation', 'notFound', ...auth),
        },
      }),
    },
    [TOKEN_ENDPOINT_PATH]: {
      post: {
        tags: [options.tag],
        operationId: 'issueClientCredentialsToken',
        summary: 'Exchange an API key for an access token (OAuth 2.0 client credentials)',
        description:
          'RFC 6749 section 4.4: `grant_type=client_credentials`, the key id as client id and ' +
          'the API key as client secret, by HTTP Basic or in the form (one way only). The token ' +
          `is a JWT for \`Authorization: Bearer\` that lives ${String(CLIENT_TOKEN_TTL_SECONDS / 60)} ` +
          'minutes (less when the key expires sooner) and ends when the key is revoked. `scope` ' +
          "narrows it to some of the key's scopes (all of them by default); the token's `scope` " +
          'claim and the answer name those granted. ' +
          OAUTH_ERRORS,
        security: [{ [CLIENT_BASIC_SCHEME]: [] }, {}],
        requestBody: {
          required: true,
          content: { 'application/x-www-form-urlencoded': { schema: tokenRequestSchema } },
        },
        responses: {
          200: {
            description: 'The token',
            headers: { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } },
            content: { 'application/json': { schema: tokenResponseSchema } },
          },
          400: {
            description:
              '`invalid_request`, `unsupported_grant_type` or `invalid_scope`; a request the APIs cannot read at ' +
              'all (an undecodable target, a JSON body that is not JSON, a body that does not ' +
              'decompress) is refused before the endpoint, with their error body',
            content: {
              'application/json': { schema: z.union([oauthErrorSchema, errorBodySchema]) },
            },
          },
          401: {
            ...oauthError('`invalid_client`'),
            headers: {
              'WWW-Authenticate': {
                schema: { type: 'string', example: 'Basic realm="trustpoint", charset="UTF-8"' },
              },
            },
          },
          ...Object.fromEntries(
            Object.entries(options.errors()).filter(
              ([status]) => status !== '400' && status !== '401',
            ),
          ),
        },
      },
    },
  };
}
