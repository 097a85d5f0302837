import {
  addEvidenceBodySchema,
  assetListQuerySchema,
  assetPageSchema,
  assetSchema,
  createAssetBodySchema,
  createErrorCatalogue,
  successEnvelopeSchema,
  transactionSchema,
  type ApiScope,
  type ErrorCode,
} from '@trustpoint/domain';
import {
  acceptedResponse,
  networksOperation,
  idempotentOperation,
  openApiErrorResponses,
  preferHeaderSchema,
  scopedOperation,
} from '@trustpoint/http';
import {
  BEARER_TOKENS_DESCRIPTION,
  IDENTITY_SECURITY_SCHEMES,
  ACCOUNT_TAG_DESCRIPTION,
  accountPaths,
  IDENTITY_TAG_DESCRIPTION,
  identityPaths,
} from '@trustpoint/identity';
import { WEBHOOKS_TAG_DESCRIPTION, webhookPaths } from '@trustpoint/webhooks';
import type { z } from 'zod';
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import {
  evidenceParamsSchema,
  shareParamsSchema,
  trackIdParamsSchema,
} from '../routes/track-params.js';
import { assetSharesSchema, evidencesVerificationSchema } from './track-schemas.js';

export interface TrackApiDocumentOptions {
  /** The support contact the error messages name, as the app's error catalogue has it. */
  supportContact?: string;
  /** Whether the app serves the webhook routes (`webhooks` in its options). */
  webhooks?: boolean;
  /** How long the app keeps `Idempotency-Key`s, for the document to state; 24 hours by default. */
  idempotencyRetentionMs?: number;
}

const TAG = 'Asset Tracking';
const WEBHOOKS_TAG = 'Webhooks';
const IDENTITY_TAG = 'API Keys and Tokens';
const ACCOUNT_TAG = 'Account';
const UTILS_TAG = 'Utils';
const BEARER = 'bearerAuth';
const AUTHENTICATED: oas31.SecurityRequirementObject[] = [{ [BEARER]: [] }];

/** What a 400 looks like: one `errors[]` entry per problem, named by where it was found. */
const VALIDATION_EXAMPLE_ERRORS = [
  { field: 'body.assetId', error: 'Invalid input: expected string, received undefined' },
  { field: 'path.trackID', error: 'Invalid input' },
];

const AUTH_ERRORS: ErrorCode[] = [
  'missingToken',
  'expiredToken',
  'invalidToken',
  'wrongCredentials',
];

function success(
  status: 200 | 201,
  description: string,
  data: z.ZodType,
): ZodOpenApiResponsesObject {
  return {
    [status]: {
      description,
      content: { 'application/json': { schema: successEnvelopeSchema(data) } },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the asset-tracking API (server `/track/v2`), generated with
 * zod-openapi from the zod schemas the routes validate with and the error catalogue they answer
 * from. Every route needs a bearer token; assets others own and did not share are 404.
 */
export function trackApiDocument(options: TrackApiDocumentOptions = {}): oas31.OpenAPIObject {
  const catalogue = createErrorCatalogue(
    options.supportContact === undefined ? {} : { supportContact: options.supportContact },
  );
  const errors = (...codes: ErrorCode[]) =>
    openApiErrorResponses(
      catalogue,
      ['validation', ...AUTH_ERRORS, ...codes],
      VALIDATION_EXAMPLE_ERRORS,
    );
  const operation = (op: ZodOpenApiOperationObject): ZodOpenApiOperationObject => ({
    tags: [TAG],
    security: AUTHENTICATED,
    ...op,
  });
  const scoped = (op: ZodOpenApiOperationObject, scope: ApiScope) =>
    scopedOperation(op, scope, catalogue, VALIDATION_EXAMPLE_ERRORS);
  const idempotent = (op: ZodOpenApiOperationObject) =>
    idempotentOperation(op, catalogue, VALIDATION_EXAMPLE_ERRORS, options.idempotencyRetentionMs);

  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Trustpoint asset-tracking API',
      version: '2.0.0',
      description:
        'Assets and the evidences registered for them on an EVM network. Each evidence is ' +
        'anchored under (assetHash, timestamp in seconds) and can be verified with ' +
        '`getEvidence(assetHash, timestamp)` on the contract `smartContract`. An asset holds one ' +
        'evidence per second: the service gives each evidence of an assetHash its own second, ' +
        'running ahead of the clock under a burst. What `assetHash` covers depends on the ' +
        "asset's `hashVersion`: version 1 (assets created before version 2) covers `assetId` and " +
        '`data`, so assets of other users with the same assetId and data share its seconds; ' +
        'version 2 (every new asset) covers `hashVersion`, `trackID`, `owner`, `assetId` and ' +
        '`data`: `doubleHash(utf8("Trustpoint asset hash v2\\n") ‖ JCS({hashVersion: 2, trackID, ' +
        'owner, assetId, data}))`, so every asset has its own seconds. An evidence `hash` covers ' +
        '`metadata`, `timestamp` and `userOwner`; `status`, `smartContract` and `transactionHash` ' +
        'are not hashed (a verifier checks the last two against the chain).',
    },
    servers: [{ url: '/track/v2' }],
    tags: [
      { name: TAG, description: 'Assets, their evidences and their shares' },
      { name: UTILS_TAG, description: 'Verification and networks' },
      ...(options.webhooks === true
        ? [{ name: WEBHOOKS_TAG, description: WEBHOOKS_TAG_DESCRIPTION }]
        : []),
      { name: IDENTITY_TAG, description: IDENTITY_TAG_DESCRIPTION },
      { name: ACCOUNT_TAG, description: ACCOUNT_TAG_DESCRIPTION },
    ],
    components: {
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: BEARER_TOKENS_DESCRIPTION,
        },
        ...IDENTITY_SECURITY_SCHEMES,
      },
    },
    paths: {
      '/assets': {
        post: idempotent(
          scoped(
            operation({
              operationId: 'createAsset',
              summary: 'Create an asset and register its first evidence',
              description:
                'Spends one credit. `data` is immutable. The asset gets `hashVersion` 2: its ' +
                '`assetHash` covers its new `trackID`, its `owner` (the caller), `assetId` and ' +
                '`data`, so its evidences have seconds of their own, whoever else holds an asset ' +
                'with the same assetId and data. ' +
                'The first evidence has metadata `{}`. Answered once the evidence is mined (503 if ' +
                'the network does not mine it in time; nothing is kept then), or at once with it ' +
                'pending (202) with `Prefer: respond-async`; 202 too when the wait ended after its ' +
                'batch was sent (it will be anchored).',
              requestParams: { header: preferHeaderSchema },
              requestBody: {
                required: true,
                content: { 'application/json': { schema: createAssetBodySchema } },
              },
              responses: {
                ...success(201, 'Asset created', assetSchema),
                ...acceptedResponse(
                  'Asset accepted and stored, its first evidence pending; follow it at `Location`',
                  successEnvelopeSchema(assetSchema),
                  'Asset accepted, anchoring pending',
                  undefined,
                ),
                ...errors(
                  'providerNotInPlan',
                  'assetIdAlreadyRegistered',
                  'payloadTooLarge',
                  'outOfCredits',
                  'networkUnavailable',
                  'networkBusy',
                ),
              },
            }),
            'track',
          ),
        ),
        get: scoped(
          operation({
            operationId: 'listAssets',
            summary: "The caller's assets and those shared with them",
            description:
              'Each asset is whole unless `fields` names the members to return; then each holds ' +
              'only those (see AssetFields).',
            requestParams: { query: assetListQuerySchema },
            responses: { ...success(200, 'A page of assets', assetPageSchema), ...errors() },
          }),
          'read',
        ),
      },
      '/assets/{trackID}': {
        get: scoped(
          operation({
            operationId: 'getAsset',
            summary: 'One asset with its transactions, oldest first',
            requestParams: { path: trackIdParamsSchema },
            responses: { ...success(200, 'The asset', assetSchema), ...errors('notFound') },
          }),
          'read',
        ),
      },
      '/assets/{trackID}/transactions': {
        post: idempotent(
          scoped(
            operation({
              operationId: 'addEvidence',
              summary: 'Register an evidence for an asset',
              description:
                'By the owner or a user the asset is shared with, who becomes its `userOwner` and ' +
                'spends one credit. An asset holds one evidence per second: the service gives each ' +
                'evidence of an assetHash the next free second (now, or ahead of the clock under a ' +
                'burst, 429 past the margin). ' +
                'Answered once mined (503 if not in time; nothing is kept then), or at once ' +
                'pending (202) with `Prefer: respond-async`, as for assets.',
              requestParams: { path: trackIdParamsSchema, header: preferHeaderSchema },
              requestBody: {
                required: true,
                content: { 'application/json': { schema: addEvidenceBodySchema } },
              },
              responses: {
                ...success(201, 'Evidence registered', transactionSchema),
                ...acceptedResponse(
                  'Evidence accepted and stored, pending; follow it at `Location` (its asset)',
                  successEnvelopeSchema(transactionSchema),
                  'Evidence accepted, anchoring pending',
                  undefined,
                ),
                ...errors(
                  'notFound',
                  'providerNotInPlan',
                  'payloadTooLarge',
                  'outOfCredits',
                  'networkUnavailable',
                  'networkBusy',
                ),
              },
            }),
            'track',
          ),
        ),
      },
      '/assets/{trackID}/shares': {
        get: scoped(
          operation({
            operationId: 'listAssetShares',
            summary: 'Who the asset is shared with (owner only)',
            requestParams: { path: trackIdParamsSchema },
            responses: { ...success(200, 'The shares', assetSharesSchema), ...errors('notFound') },
          }),
          'read',
        ),
      },
      '/assets/{trackID}/shares/{userDid}': {
        put: scoped(
          operation({
            operationId: 'shareAsset',
            summary: 'Let a user read the asset and add evidences (owner only)',
            requestParams: { path: shareParamsSchema },
            responses: { ...success(200, 'Shared', assetSharesSchema), ...errors('notFound') },
          }),
          'track',
        ),
        delete: scoped(
          operation({
            operationId: 'unshareAsset',
            summary: 'Withdraw a share (owner only)',
            requestParams: { path: shareParamsSchema },
            responses: {
              ...success(200, 'Share withdrawn', assetSharesSchema),
              ...errors('notFound'),
            },
          }),
          'track',
        ),
      },
      '/evidences/{id}': {
        get: scoped(
          operation({
            operationId: 'verifyEvidence',
            summary: 'Verify an evidence on chain by its hash (verification method 1)',
            requestParams: { path: evidenceParamsSchema },
            responses: {
              ...success(200, 'The verification', evidencesVerificationSchema),
              ...errors('notFound'),
            },
          }),
          'read',
        ),
      },
      '/networks': {
        get: networksOperation({
          tag: UTILS_TAG,
          errors: openApiErrorResponses(catalogue, [], VALIDATION_EXAMPLE_ERRORS),
        }),
      },
      ...(options.webhooks === true
        ? webhookPaths({
            tag: WEBHOOKS_TAG,
            security: AUTHENTICATED,
            errors: (...codes) =>
              openApiErrorResponses(catalogue, codes, VALIDATION_EXAMPLE_ERRORS),
            idempotent,
            scoped,
          })
        : {}),
      ...accountPaths({
        tag: ACCOUNT_TAG,
        security: AUTHENTICATED,
        errors: (...codes) => openApiErrorResponses(catalogue, codes, VALIDATION_EXAMPLE_ERRORS),
        scoped,
      }),
      ...identityPaths({
        tag: IDENTITY_TAG,
        security: AUTHENTICATED,
        errors: (...codes) => openApiErrorResponses(catalogue, codes, VALIDATION_EXAMPLE_ERRORS),
        idempotent,
        scoped,
      }),
    },
  });
}
