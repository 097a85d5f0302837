import { createErrorCatalogue, type ErrorCode } from '@trustpoint/domain';
import { idempotentOperation, openApiErrorResponses, scopedOperation } from '@trustpoint/http';
import { changeApiKeyScopesBodySchema, createApiKeyBodySchema } from '@trustpoint/identity';
import type { z } from 'zod';
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { ADMIN_API_BASE_PATH } from './admin-api-options.js';
import {
  adminApiKeyListResponse,
  adminApiKeyResponse,
  adminCreatedApiKeyResponse,
  auditListResponse,
  auditQuerySchema,
  createPlanBodySchema,
  createUserBodySchema,
  creditChangeResponse,
  creditHistoryQuerySchema,
  creditHistoryResponse,
  grantCreditsBodySchema,
  mintedTokenResponse,
  mintTokenBodySchema,
  planIdParamsSchema,
  planListResponse,
  planResponse,
  recordPageResponse,
  recordsQuerySchema,
  setCreditsBodySchema,
  updatePlanBodySchema,
  updateUserBodySchema,
  userApiKeyParamsSchema,
  userIdParamsSchema,
  userListQuerySchema,
  userListResponse,
  userResponse,
  userStateBodySchema,
} from './admin-schemas.js';

export interface AdminApiDocumentOptions {
  /** The support contact the error messages name, as the app's error catalogue has it. */
  supportContact?: string;
  /** How long the app keeps `Idempotency-Key`s, for the document to state; 24 hours by default. */
  idempotencyRetentionMs?: number;
}

const BEARER = 'bearerAuth';
const TAGS = {
  users: 'Users',
  credits: 'Credits',
  apiKeys: 'API keys',
  plans: 'Plans',
  audit: 'Audit',
  records: 'Records',
} as const;
const VALIDATION_EXAMPLE_ERRORS = [{ field: 'body.planId', error: 'No such plan' }];
const AUTH: ErrorCode[] = [
  'missingToken',
  'expiredToken',
  'invalidToken',
  'wrongCredentials',
  'adminRequired',
];

/** The OpenAPI 3.1 document of the admin API (server `/admin/v1`), from the routes' schemas. */
export function adminApiDocument(options: AdminApiDocumentOptions = {}): oas31.OpenAPIObject {
  const catalogue = createErrorCatalogue(
    options.supportContact === undefined ? {} : { supportContact: options.supportContact },
  );
  const errors = (...codes: ErrorCode[]): ZodOpenApiResponsesObject =>
    openApiErrorResponses(catalogue, [...codes, ...AUTH], VALIDATION_EXAMPLE_ERRORS);
  const ok = (status: 200 | 201, description: string, schema: z.ZodType) => ({
    [status]: { description, content: { 'application/json': { schema } } },
  });
  const json = (schema: z.ZodType, required = true) => ({
    required,
    content: { 'application/json': { schema } },
  });
  // Every operation needs the `admin` scope of an administrator's API key (or a token from one).
  const operation = (tag: string, op: ZodOpenApiOperationObject): ZodOpenApiOperationObject =>
    scopedOperation(
      { tags: [tag], security: [{ [BEARER]: [] }], ...op },
      'admin',
      catalogue,
      VALIDATION_EXAMPLE_ERRORS,
    );

  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Trustpoint admin API',
      version: '1.0.0',
      description:
        'Users, plans, credits, tokens, the audit log and the anchor records of a Trustpoint ' +
        'service. Every operation ' +
        'needs the token of a user with the `admin` role (403 `Forbidden Error` otherwise), ' +
        'and with an API key (or a token exchanged for one) the `admin` scope, and ' +
        'writes its changes to the audit log with the admin and the request id (`X-Request-Id`). ' +
        'Successes answer `{statusCode, message, data}`; errors `{statusCode, type, message, errors?}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: ADMIN_API_BASE_PATH }],
    tags: [
      { name: TAGS.users, description: 'Users, their roles, plans, qualified flag and tokens' },
      { name: TAGS.credits, description: 'Balances and their ledger' },
      { name: TAGS.apiKeys, description: "Any user's API keys" },
      { name: TAGS.plans, description: 'Which networks the users of a plan may anchor on' },
      { name: TAGS.audit, description: 'Every change made through the APIs, append-only' },
      {
        name: TAGS.records,
        description:
          'Every record the APIs acknowledged, as the database holds it, to compare with the chain',
      },
    ],
    components: {
      securitySchemes: { [BEARER]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
    paths: {
      '/users': {
        post: operation(TAGS.users, {
          operationId: 'createUser',
          summary: 'Create a user',
          description: 'With its plan, role, qualified flag and starting balance (a ledger entry).',
          requestBody: json(createUserBodySchema),
          responses: {
            ...ok(201, 'Created', userResponse),
            ...errors('validation', 'alreadyExists'),
          },
        }),
        get: operation(TAGS.users, {
          operationId: 'listUsers',
          summary: 'Users, a page at a time, by id; disabled ones too',
          requestParams: { query: userListQuerySchema },
          responses: { ...ok(200, 'A page of users', userListResponse), ...errors('validation') },
        }),
      },
      '/users/{id}': {
        get: operation(TAGS.users, {
          operationId: 'getUser',
          summary: 'A user with its balance',
          requestParams: { path: userIdParamsSchema },
          responses: { ...ok(200, 'The user', userResponse), ...errors('validation', 'notFound') },
        }),
        patch: operation(TAGS.users, {
          operationId: 'updateUser',
          summary: "Change a user's name, plan, qualified flag or role",
          description: 'An admin cannot take their own admin role away (400).',
          requestParams: { path: userIdParamsSchema },
          requestBody: json(updateUserBodySchema),
          responses: {
            ...ok(200, 'The user as changed', userResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/disable': {
        post: operation(TAGS.users, {
          operationId: 'disableUser',
          summary: 'Disable a user',
          description:
            "From the next request on, the user's tokens and API keys are refused (401 User " +
            'credentials are wrong). An admin cannot disable themselves (400).',
          requestParams: { path: userIdParamsSchema },
          requestBody: json(userStateBodySchema, false),
          responses: {
            ...ok(200, 'The user, disabled', userResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/enable': {
        post: operation(TAGS.users, {
          operationId: 'enableUser',
          summary: 'Enable a disabled user again',
          requestParams: { path: userIdParamsSchema },
          requestBody: json(userStateBodySchema, false),
          responses: {
            ...ok(200, 'The user, enabled', userResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/tokens': {
        post: operation(TAGS.users, {
          operationId: 'mintUserToken',
          summary: 'Mint a short-lived access token for a user',
          description:
            'A bearer token for both APIs, as the launcher mints the local one; it is not stored. ' +
            'A disabled user gets none (400). Asked with an API key (or a token exchanged for or ' +
            "minted with one), for any account, the token holds only that key's scopes, lives no " +
            'longer than the credential and stops working when the key does.',
          requestParams: { path: userIdParamsSchema },
          requestBody: json(mintTokenBodySchema, false),
          responses: {
            ...ok(201, 'The token', mintedTokenResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/credits': {
        get: operation(TAGS.credits, {
          operationId: 'getUserCredits',
          summary: 'The balance and its ledger',
          description:
            'The ledger the user reads at `GET /account/credit-movements`: the starting ' +
            'balance, grants and sets, a `spend` per credit spent (certificates, signatures, ' +
            're-anchorings, assets, evidences: `spentOn` names the operation and what it made) ' +
            'and refunds (withdrawn creations, records the chain refused; `refundOf` names the ' +
            'spend), each with the balance after it; newest first by default.',
          requestParams: { path: userIdParamsSchema, query: creditHistoryQuerySchema },
          responses: {
            ...ok(200, 'The balance and a page of movements', creditHistoryResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/credits/grant': {
        post: operation(TAGS.credits, {
          operationId: 'grantCredits',
          summary: 'Add credits to a balance',
          requestParams: { path: userIdParamsSchema },
          requestBody: json(grantCreditsBodySchema),
          responses: {
            ...ok(200, 'The new balance and its movement', creditChangeResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/credits/set': {
        post: operation(TAGS.credits, {
          operationId: 'setCredits',
          summary: 'Set a balance',
          requestParams: { path: userIdParamsSchema },
          requestBody: json(setCreditsBodySchema),
          responses: {
            ...ok(200, 'The new balance and its movement', creditChangeResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/users/{id}/api-keys': {
        get: operation(TAGS.apiKeys, {
          operationId: 'listUserApiKeys',
          summary: "A user's API keys, revoked ones too",
          requestParams: { path: userIdParamsSchema },
          responses: {
            ...ok(200, 'The keys (never the keys themselves)', adminApiKeyListResponse),
            ...errors('validation', 'notFound'),
          },
        }),
        post: idempotentOperation(
          operation(TAGS.apiKeys, {
            operationId: 'createUserApiKey',
            summary: 'Create an API key for a user',
            description:
              'The key is in this answer only (only its SHA-256 is kept; a retry with the same ' +
              '`Idempotency-Key` gets this answer again, kept sealed). A user has at most 20 ' +
              'active keys (400 beyond). `scopes` sets what it may do (every scope by default). ' +
              'Made with an API key (or a token exchanged for or minted with one), for any ' +
              "account, it is that key's child: its scopes (403 beyond), expiring no later, " +
              'narrowed and revoked with it; setting scopes is bounded the same way. Made with a ' +
              'full token no key stands behind, it has no parent. ' +
              'The admin is recorded as its creator. A retry after the ' +
              'service died before answering revokes the key nobody received and makes another.',
            requestParams: { path: userIdParamsSchema },
            requestBody: json(createApiKeyBodySchema),
            responses: {
              ...ok(201, 'Created', adminCreatedApiKeyResponse),
              ...errors('validation', 'notFound'),
            },
          }),
          catalogue,
          VALIDATION_EXAMPLE_ERRORS,
          options.idempotencyRetentionMs,
        ),
      },
      '/users/{id}/api-keys/{keyId}': {
        patch: idempotentOperation(
          operation(TAGS.apiKeys, {
            operationId: 'changeUserApiKeyScopes',
            summary: "Set what a user's API key may do",
            description:
              'Narrows or widens the key. A key made with another key never gets a scope that ' +
              'key lacks (400 naming them); narrowing a key narrows every key made with it (at ' +
              'any depth) to what both allow in the same transaction, and one left with no scope ' +
              'is revoked with its own. From the next request on, in every process, the key and ' +
              'the tokens exchanged for it may do only what its scopes now allow (a token never ' +
              'more than the scope it was issued with: widening a key widens its later tokens, ' +
              'not those already issued). Audited as `api-key.scopes` (from, to, the keys ' +
              'narrowed or revoked); setting the scopes the key has records nothing. A revoked ' +
              'or expired key is a 400.',
            requestParams: { path: userApiKeyParamsSchema },
            requestBody: json(changeApiKeyScopesBodySchema),
            responses: {
              ...ok(200, 'The key as it is now', adminApiKeyResponse),
              ...errors('validation', 'notFound'),
            },
          }),
          catalogue,
          VALIDATION_EXAMPLE_ERRORS,
          options.idempotencyRetentionMs,
        ),
        delete: operation(TAGS.apiKeys, {
          operationId: 'revokeUserApiKey',
          summary: "Revoke a user's API key",
          description:
            'Refused from the next request on, with the tokens made from it and every key made ' +
            'with it (its children, theirs, ...), revoked in the same transaction. Revoking ' +
            'again changes nothing.',
          requestParams: { path: userApiKeyParamsSchema },
          responses: {
            ...ok(200, 'The key, revoked', adminApiKeyResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/plans': {
        post: operation(TAGS.plans, {
          operationId: 'createPlan',
          summary: 'Create a plan',
          description: 'Each network id must be one the service has configured (400 otherwise).',
          requestBody: json(createPlanBodySchema),
          responses: {
            ...ok(201, 'Created', planResponse),
            ...errors('validation', 'alreadyExists'),
          },
        }),
        get: operation(TAGS.plans, {
          operationId: 'listPlans',
          summary: 'Every plan, by id',
          responses: { ...ok(200, 'The plans', planListResponse), ...errors() },
        }),
      },
      '/plans/{id}': {
        get: operation(TAGS.plans, {
          operationId: 'getPlan',
          summary: 'A plan',
          requestParams: { path: planIdParamsSchema },
          responses: { ...ok(200, 'The plan', planResponse), ...errors('validation', 'notFound') },
        }),
        put: operation(TAGS.plans, {
          operationId: 'updatePlan',
          summary: "Replace a plan's networks (and its name)",
          description: 'Its users may use the new networks from their next request on.',
          requestParams: { path: planIdParamsSchema },
          requestBody: json(updatePlanBodySchema),
          responses: {
            ...ok(200, 'The plan as changed', planResponse),
            ...errors('validation', 'notFound'),
          },
        }),
      },
      '/audit': {
        get: operation(TAGS.audit, {
          operationId: 'listAuditEntries',
          summary: 'The audit log, newest first',
          description:
            'Every admin action and every change made through the APIs (certificates created, ' +
            'revoked, signed, their access changed; assets created, shared; evidences added; ' +
            'webhook endpoints), with actor, time, request id, target and what changed.',
          requestParams: { query: auditQuerySchema },
          responses: {
            ...ok(200, 'A page of entries', auditListResponse),
            ...errors('validation'),
          },
        }),
      },
      '/records': {
        get: operation(TAGS.records, {
          operationId: 'listAnchorRecords',
          summary: 'Acknowledged anchor records, a page at a time, by id',
          description:
            'Every certificate trustpoint and asset evidence the APIs answered 201 or 202 for ' +
            '(withdrawn ones left out), with the key and hash it promised to write on chain, its ' +
            'status, and once anchored its registry, transaction and block: what `trustpoint ' +
            'reconcile` compares with the chain. Pages of up to 10,000 follow the `next` cursor ' +
            '(pass it as `after`); records created meanwhile only ever appear on later pages. ' +
            'Reading is not audited.',
          requestParams: { query: recordsQuerySchema },
          responses: {
            ...ok(200, 'A page of records', recordPageResponse),
            ...errors('validation'),
          },
        }),
      },
    },
  });
}
