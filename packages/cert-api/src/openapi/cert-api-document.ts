import {
  assetCertificateBodySchema,
  certificateAccessChangesBodySchema,
  certificateListQuerySchema,
  certificatePageSchema,
  certificateSchema,
  CERTIFICATE_EXAMPLE,
  contentCertificateBodySchema,
  createCertificateQuerySchema,
  createErrorCatalogue,
  errorBodySchema,
  fileCertificateBodySchema,
  hashHexSchema,
  networkQuerySchema,
  reanchorQuerySchema,
  successEnvelopeSchema,
  urlCertificateBodySchema,
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
  SERVICE_BUSY_BODY,
} from '@trustpoint/http';
import { MAX_CERTIFICATE_TRUSTPOINTS } from '@trustpoint/verifier';
import {
  PRINTED_CONTENT_MAX_LENGTH,
  PRINTED_CONTENT_MAX_LINES,
  PRINTED_VALUE_MAX_LENGTH,
} from '../certificates/printed-text.js';
import {
  CERTIFICATE_PDF_MAX_WAIT_MS,
  CERTIFICATE_PDF_RETRY_AFTER_SECONDS,
  DEFAULT_CERTIFICATE_PDFS_AT_ONCE,
} from '../routes/certificate-pdf-limits.js';
import {
  BEARER_TOKENS_DESCRIPTION,
  IDENTITY_SECURITY_SCHEMES,
  ACCOUNT_TAG_DESCRIPTION,
  accountPaths,
  IDENTITY_TAG_DESCRIPTION,
  identityPaths,
} from '@trustpoint/identity';
import { WEBHOOKS_TAG_DESCRIPTION, webhookPaths } from '@trustpoint/webhooks';
import { z } from 'zod';
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { pinAttemptLimits, type PinAttemptLimits } from '../certificates/pin-attempt-limits.js';
import { BODY_PART, FILE_PART } from '../routes/receive-file-upload.js';
import { lookupParamsSchema, pinQuerySchema } from '../routes/certificate-lookup-params.js';
import {
  POSTED_VERIFICATION_MAX_WAIT_MS,
  POSTED_VERIFICATION_RETRY_AFTER_SECONDS,
  postedVerificationLimits,
  type PostedVerificationLimits,
} from '../routes/posted-verification-limits.js';
import {
  certificateVerificationSchema,
  postedCertificateVerificationSchema,
} from './certificate-verification-schema.js';
import { jwksSchema } from './jwks-schema.js';
import {
  ISSUER_DOMAINS_TAG,
  ISSUER_DOMAINS_TAG_DESCRIPTION,
  issuerDomainsPaths,
} from './issuer-domains-paths.js';

export interface CertApiDocumentOptions {
  /** The support contact the error messages name, as the app's error catalogue has it. */
  supportContact?: string;
  /** The limits on wrong PINs the app applies, for the document to state. */
  pinAttempts?: Partial<PinAttemptLimits>;
  /** Whether the app serves the webhook routes (`webhooks` in its options). */
  webhooks?: boolean;
  /** How long the app keeps `Idempotency-Key`s, for the document to state; 24 hours by default. */
  idempotencyRetentionMs?: number;
  /** The limits on posted copies the app applies, for the document to state. */
  postedVerifications?: Partial<PostedVerificationLimits>;
  /** Certificate PDFs made at once (`DEFAULT_CERTIFICATE_PDFS_AT_ONCE` when left out). */
  certificatePdfsAtOnce?: number;
}

/** `3600000` as `1 hour`, `600000` as `10 minutes`. */
function durationText(ms: number): string {
  const units = [
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1_000],
  ] as const;
  for (const [unit, size] of units) {
    const count = ms / size;
    if (Number.isInteger(count)) return `${String(count)} ${unit}${count === 1 ? '' : 's'}`;
  }
  return `${String(ms)} ms`;
}

/** How wrong PINs are limited, with the deployment's numbers. */
function pinLimitDescription(given: Partial<PinAttemptLimits> | undefined): string {
  const { perCertificate, perAddress, windowMs } = pinAttemptLimits(given);
  return (
    `Wrong PINs are limited to ${String(perCertificate)} per certificate (from all addresses ` +
    `together) and ${String(perAddress)} per client address (over all certificates) in a window ` +
    `of ${durationText(windowMs)} that starts with the first attempt: once either is reached, every attempt ` +
    'with a PIN, the right one included, is a 429 with `Retry-After` until the window ends. ' +
    'The issuer, with a token, needs no PIN and is never limited by this.'
  );
}

const TAGS = {
  generation: 'Certificate Generation',
  management: 'Certificate Management',
  signature: 'Qualified Signature',
  utils: 'Utils',
  webhooks: 'Webhooks',
  identity: 'API Keys and Tokens',
  account: 'Account',
} as const;

/** What a 400 looks like: one `errors[]` entry per problem, named by where it was found. */
const VALIDATION_EXAMPLE_ERRORS = [
  { field: 'query.networkId', error: 'Invalid input: expected number, received undefined' },
  { field: 'body.name', error: 'Invalid input: expected string, received undefined' },
];

const BEARER = 'bearerAuth';
/** A token is required. */
const AUTHENTICATED: oas31.SecurityRequirementObject[] = [{ [BEARER]: [] }];
/** Anonymous callers are served too; a token that is sent is checked. */
const OPTIONAL_AUTHENTICATION: oas31.SecurityRequirementObject[] = [{}, { [BEARER]: [] }];
const PUBLIC: oas31.SecurityRequirementObject[] = [];

/** What every creation says of the certificate hash (issue #24). */
const CERTIFICATE_HASH_V2_DESCRIPTION =
  'Every new certificate is made under hash version 2 (`data.hashVersion: 2`): `data.hash`, ' +
  'the Evidence `trustPointHash`, covers certID, type, name, description, issuer, ' +
  '`issuerOrigin` (the configured public URL), issuedOn, expires, `fileHash` and the content, ' +
  'each content member and element through a salted RFC 9901 (SD-JWT) disclosure in ' +
  '`data.selectiveDisclosure`, so a holder can withhold some and the rest still verifies. ' +
  'Content numbers must be I-JSON (integers within ±(2^53 − 1)) and no member may be named ' +
  '`_sd` or `...` (400). The unsalted digest of the content or file (version 1 rule) stays ' +
  'stored: a repeat of it is a 409 and `/certificates/hash/{digest}` finds the certificate.';

/** `{type}/{id}`: the schema the routes validate with, the values of `type` described. */
const lookupPathSchema = z.object({
  type: lookupParamsSchema.shape.type.meta({
    description:
      'What `id` is. certID finds public certificates of anyone; the others search only the ' +
      "caller's own certificates and need a token",
  }),
  id: lookupParamsSchema.shape.id,
});

const certificateResponseSchema = successEnvelopeSchema(certificateSchema).meta({
  id: 'CertificateResponse',
});
const certificateListResponseSchema = successEnvelopeSchema(certificatePageSchema).meta({
  id: 'CertificateListResponse',
});
const certificateVerificationResponseSchema = successEnvelopeSchema(
  certificateVerificationSchema,
).meta({ id: 'CertificateVerificationResponse' });

const postedVerificationResponseSchema = successEnvelopeSchema(
  postedCertificateVerificationSchema,
).meta({ id: 'PostedCertificateVerificationResponse' });

/** The JSON bodies of POST /certificates; which one applies is chosen by `?type=`. */
const jsonCertificateBodySchema = z
  .xor([contentCertificateBodySchema, assetCertificateBodySchema, urlCertificateBodySchema])
  .meta({
    description:
      'The body of `type=content`, `type=asset` or `type=url`, as the `type` query says ' +
      '(`type=file` is sent as multipart/form-data)',
  });

/** POST /certificates?type=file: the file and the same body as JSON text in a part of its own. */
const fileUploadSchema = z
  .object({
    [FILE_PART]: z.string().meta({
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description: 'The file; hashed while it streams, limited to the configured size (413)',
    }),
    [BODY_PART]: fileCertificateBodySchema.meta({
      description: 'The certificate body as JSON text (the part is application/json)',
    }),
  })
  .meta({ description: 'Parts may come in either order; no other part is accepted' });

const CERTIFICATE_LIST_EXAMPLE = {
  certificates: [CERTIFICATE_EXAMPLE],
  pagination: { offset: 0, limit: 20, total: 1, order: 'desc' },
};

const [EVIDENCE_EXAMPLE] = CERTIFICATE_EXAMPLE.metadata;
const VERIFICATION_EXAMPLE = {
  certID: CERTIFICATE_EXAMPLE.certID,
  verified: true,
  revoked: false,
  verdict: 'verified',
  status: [
    {
      networkId: EVIDENCE_EXAMPLE.networkId,
      outcome: 'notRevoked',
      statusRegistry: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      detail:
        'not revoked: the status registry 0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0 holds no revocation',
    },
  ],
  trustpoints: [
    {
      ...EVIDENCE_EXAMPLE,
      onChain: { hash: EVIDENCE_EXAMPLE.trustPointHash, type: EVIDENCE_EXAMPLE.type },
      hashMatches: true,
      typeMatches: true,
      status: 'match',
      explorer: {
        transactionUrl: `https://sepolia.etherscan.io/tx/${EVIDENCE_EXAMPLE.transactionHash}`,
        contractUrl: `https://sepolia.etherscan.io/address/${EVIDENCE_EXAMPLE.smartContract}#readContract`,
        function: 'getTrustPoint',
        inputs: [
          { name: 'certId', type: 'string', value: CERTIFICATE_EXAMPLE.certID },
          { name: 'timestamp', type: 'uint256', value: String(EVIDENCE_EXAMPLE.timestamp) },
        ],
        expected: [
          { name: 'hash', type: 'string', value: EVIDENCE_EXAMPLE.trustPointHash },
          { name: 'trustPointType', type: 'uint8', value: '0' },
        ],
      },
    },
  ],
};

const POSTED_VERIFICATION_EXAMPLE = {
  certID: CERTIFICATE_EXAMPLE.certID,
  verified: true,
  revoked: false,
  verdict: 'verified',
  status: VERIFICATION_EXAMPLE.status,
  hash: {
    given: CERTIFICATE_EXAMPLE.data.hash,
    recomputed: CERTIFICATE_EXAMPLE.data.hash,
    matches: true,
    detail: 'data.hash recomputed by the content rule',
  },
  trustpoints: [
    {
      type: EVIDENCE_EXAMPLE.type,
      networkId: EVIDENCE_EXAMPLE.networkId,
      timestamp: EVIDENCE_EXAMPLE.timestamp,
      smartContract: EVIDENCE_EXAMPLE.smartContract,
      transactionHash: EVIDENCE_EXAMPLE.transactionHash,
      trustPointHash: EVIDENCE_EXAMPLE.trustPointHash,
      expectedHash: EVIDENCE_EXAMPLE.trustPointHash,
      onChain: { hash: EVIDENCE_EXAMPLE.trustPointHash, type: EVIDENCE_EXAMPLE.type },
      chainTime: {
        blockNumber: 7_264_019,
        blockHash: `0x${'5c'.repeat(32)}`,
        timestamp: EVIDENCE_EXAMPLE.timestamp - (EVIDENCE_EXAMPLE.timestamp % 1000),
      },
      verdict: 'anchored',
      detail: 'on chain with the certificate hash',
    },
  ],
};

/**
 * The 429 of the operations that check a PIN: besides the request rate limit, wrong PINs are
 * limited per certificate and per client address, and the answer says when to come back.
 */
function withPinAttemptLimit(responses: ZodOpenApiResponsesObject): ZodOpenApiResponsesObject {
  const tooMany = responses['429'];
  if (tooMany === undefined || '$ref' in tooMany) return responses;
  return {
    ...responses,
    429: {
      ...tooMany,
      description:
        'Too many requests; or too many wrong PINs for this certificate or from this address ' +
        'within the window, after which even the right PIN is refused until the window ends',
      headers: {
        'Retry-After': {
          description: 'Seconds until PIN attempts are answered again (set on PIN limits)',
          required: false,
          schema: { type: 'integer', minimum: 1 },
        },
      },
    },
  };
}

/**
 * What bounds the verification of posted copies, with the deployment's numbers: the trustpoints a
 * copy may list (400), the copies per client address and minute (429) and those checked at once
 * (503), each answer saying when to come back.
 */
function postedVerificationLimitsDescription(given: Partial<PostedVerificationLimits> | undefined) {
  const { perMinute, atOnce } = postedVerificationLimits(given);
  return (
    `A copy lists at most ${String(MAX_CERTIFICATE_TRUSTPOINTS)} trustpoints (\`metadata\` ` +
    'items; a genuine certificate has an Evidence per network, at most one Signature and one ' +
    'Revocation): one listing more is a 400 naming `body.metadata`, before any node is asked, ' +
    'as is a copy naming a JSON member twice (readers disagree on which value it holds). ' +
    `Each client address may post ${String(perMinute)} copies a minute (then 429 with ` +
    `\`Retry-After\`), and this service checks ${String(atOnce)} at once, as many more waiting ` +
    `their turn for up to ${String(POSTED_VERIFICATION_MAX_WAIT_MS / 1_000)} s; any other is a 503 ` +
    `with \`Retry-After: ${String(POSTED_VERIFICATION_RETRY_AFTER_SECONDS)}\`.`
  );
}

const retryAfterHeader = (description: string) => ({
  'Retry-After': {
    description,
    required: true,
    schema: { type: 'integer' as const, minimum: 1 },
  },
});

/** The 429 and 503 of posted verifications, each with the `Retry-After` it answers. */
function withPostedVerificationLimits(
  responses: ZodOpenApiResponsesObject,
): ZodOpenApiResponsesObject {
  const tooMany = responses['429'];
  return {
    ...responses,
    ...(tooMany === undefined || '$ref' in tooMany
      ? {}
      : {
          429: {
            ...tooMany,
            description:
              'Too many requests, or too many copies posted from this address this minute',
            headers: retryAfterHeader('Seconds until this address may post again'),
          },
        }),
    ...serviceBusy(
      'Service Unavailable Error: as many copies as it checks at once are being checked',
      'Seconds to wait before posting again',
    ),
  };
}

/** The 503 of work a process does only so much of at once (`ConcurrencyLimit`), with `Retry-After`. */
function serviceBusy(description: string, retryAfter: string): ZodOpenApiResponsesObject {
  return {
    503: {
      description,
      headers: retryAfterHeader(retryAfter),
      content: {
        'application/json': {
          schema: errorBodySchema,
          examples: {
            serviceBusy: { summary: SERVICE_BUSY_BODY.message, value: SERVICE_BUSY_BODY },
          },
        },
      },
    },
  };
}

/** A certificate acknowledged before its Evidence trustpoint was mined. */
const PENDING_CERTIFICATE_EXAMPLE = {
  ...CERTIFICATE_EXAMPLE,
  metadata: CERTIFICATE_EXAMPLE.metadata.map(
    ({ smartContract: _contract, transactionHash: _transaction, ...trustpoint }) => ({
      ...trustpoint,
      status: 'pending',
    }),
  ),
  status: 'pending',
};

/** A success response: the envelope with its `data` schema, and the message as an example. */
function success(
  status: 200 | 201,
  description: string,
  schema: z.ZodType,
  message: string,
  data: unknown,
): ZodOpenApiResponsesObject {
  return {
    [status]: {
      description,
      content: {
        'application/json': {
          schema,
          examples: {
            [status === 201 ? 'created' : 'ok']: {
              summary: message,
              value: { statusCode: status, message, data },
            },
          },
        },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the certificate API (server `/cert/v2`), generated with zod-openapi
 * from the zod schemas the routes validate with and the error catalogue they answer from, so the
 * document cannot describe an API other than the one that runs.
 */
export function certApiDocument(options: CertApiDocumentOptions = {}): oas31.OpenAPIObject {
  const catalogue = createErrorCatalogue(
    options.supportContact === undefined ? {} : { supportContact: options.supportContact },
  );
  const errors = (...codes: ErrorCode[]): ZodOpenApiResponsesObject =>
    openApiErrorResponses(catalogue, codes, VALIDATION_EXAMPLE_ERRORS);
  const idempotent = (operation: ZodOpenApiOperationObject) =>
    idempotentOperation(
      operation,
      catalogue,
      VALIDATION_EXAMPLE_ERRORS,
      options.idempotencyRetentionMs,
    );
  const scoped = (operation: ZodOpenApiOperationObject, scope: ApiScope) =>
    scopedOperation(operation, scope, catalogue, VALIDATION_EXAMPLE_ERRORS);
  const authErrors: ErrorCode[] = [
    'missingToken',
    'expiredToken',
    'invalidToken',
    'wrongCredentials',
  ];

  const createCertificate: ZodOpenApiOperationObject = {
    operationId: 'createCertificate',
    tags: [TAGS.generation],
    summary: 'Certify content, an asset, a file or a URL',
    description:
      'Hashes what is certified and anchors an Evidence trustpoint on the network `networkId`, ' +
      'spending one credit. `type=file` takes multipart/form-data; the other types take JSON. ' +
      '`type=url`: the service fetches the URL once (public addresses only) and hashes the bytes. ' +
      'A network whose queue holds as many records as its chain takes in one anchor timeout ' +
      'answers 503 `networkBusy` with `Retry-After` before anything is stored. ' +
      CERTIFICATE_HASH_V2_DESCRIPTION,
    security: AUTHENTICATED,
    requestParams: { query: createCertificateQuerySchema, header: preferHeaderSchema },
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: jsonCertificateBodySchema },
        'multipart/form-data': {
          schema: fileUploadSchema,
          encoding: { [BODY_PART]: { contentType: 'application/json' } },
        },
      },
    },
    responses: {
      ...success(
        201,
        'Certificate created',
        certificateResponseSchema,
        'Certificate created successfully',
        CERTIFICATE_EXAMPLE,
      ),
      ...acceptedResponse(
        'Certificate accepted and stored, its trustpoints still pending (asked with ' +
          '`Prefer: respond-async`, or the wait ended after its batch was sent): it will be ' +
          'anchored; follow it at `Location`',
        certificateResponseSchema,
        'Certificate accepted, anchoring pending',
        PENDING_CERTIFICATE_EXAMPLE,
      ),
      ...errors(
        'validation',
        ...authErrors,
        'userNotQualified',
        'providerNotInPlan',
        'certificateAlreadyRegistered',
        'externalIdAlreadyRegistered',
        'payloadTooLarge',
        'outOfCredits',
        'networkUnavailable',
        'networkBusy',
      ),
    },
  };

  const listCertificates: ZodOpenApiOperationObject = {
    operationId: 'listCertificates',
    tags: [TAGS.management],
    summary: "The caller's certificates, a page at a time",
    description:
      'Each certificate is whole unless `fields` names the fields to return; then each holds ' +
      'only those (see CertificateFields), e.g. `fields=certID,data.name` answers ' +
      '`{certID, data: {name}}` items.',
    security: AUTHENTICATED,
    requestParams: { query: certificateListQuerySchema },
    responses: {
      ...success(
        200,
        'A page of certificates and the pagination',
        certificateListResponseSchema,
        'Retrieved 1 certificate(s) out of a total of 1',
        CERTIFICATE_LIST_EXAMPLE,
      ),
      ...errors('validation', ...authErrors),
    },
  };

  const getCertificate: ZodOpenApiOperationObject = {
    operationId: 'getCertificate',
    tags: [TAGS.management],
    summary: 'One certificate',
    description:
      'Public certificates are readable by anyone by certID (with `pin` when they have a PIN); ' +
      'private ones only by their issuer. A certificate the caller may not see is a 404. ' +
      'By `hash`, either the unsalted digest of the content or file (version 1 rule) or a ' +
      "version 2 certificate's `data.hash` finds it. Whoever may read a certificate gets all of " +
      'it, `data.selectiveDisclosure` too: its disclosures hold the salts, and reveal nothing ' +
      'the whole content does not; a holder hands on a copy withholding fields (see ' +
      '`trustpoint withhold`). ' +
      pinLimitDescription(options.pinAttempts),
    security: OPTIONAL_AUTHENTICATION,
    requestParams: { path: lookupPathSchema, query: pinQuerySchema },
    responses: {
      ...success(
        200,
        'The certificate',
        certificateResponseSchema,
        'Certificate retrieved successfully',
        CERTIFICATE_EXAMPLE,
      ),
      ...withPinAttemptLimit(errors('validation', ...authErrors, 'pinRequired', 'notFound')),
    },
  };

  const getCertificatePdf: ZodOpenApiOperationObject = {
    operationId: 'getCertificatePdf',
    tags: [TAGS.management],
    summary: 'One certificate as a PDF',
    description:
      'The same access rules as reading the certificate. A PDF with its fields, every trustpoint ' +
      'and the hash, and a QR code that opens the web verifier (`/cert/v2/verify/#certID=...`) on ' +
      'it. The PDF proves nothing by itself: the verifier checks the chain. Paper shows the ' +
      `start of long text: a value up to ${String(PRINTED_VALUE_MAX_LENGTH)} printed ` +
      `characters, the certified content up to ${String(PRINTED_CONTENT_MAX_LINES)} lines and ` +
      `${String(PRINTED_CONTENT_MAX_LENGTH)} characters, each cut saying so; a character its ` +
      'fonts lack (beyond Latin-1) is printed as its code point, `<U+0418>` for `И`. The ' +
      'certificate the QR code opens holds it all. This service makes ' +
      `${String(options.certificatePdfsAtOnce ?? DEFAULT_CERTIFICATE_PDFS_AT_ONCE)} PDFs at ` +
      `once, as many more waiting their turn for up to ${String(CERTIFICATE_PDF_MAX_WAIT_MS / 1_000)} s; ` +
      `any other is a 503 with \`Retry-After: ${String(CERTIFICATE_PDF_RETRY_AFTER_SECONDS)}\`.`,
    security: OPTIONAL_AUTHENTICATION,
    requestParams: { path: lookupPathSchema, query: pinQuerySchema },
    responses: {
      200: {
        description: 'The certificate as a PDF (attachment named after the certID)',
        content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
      },
      ...withPinAttemptLimit(errors('validation', ...authErrors, 'pinRequired', 'notFound')),
      ...serviceBusy(
        'Service Unavailable Error: as many PDFs as it makes at once are being made',
        'Seconds to wait before asking again',
      ),
    },
  };

  const changeCertificateAccess: ZodOpenApiOperationObject = {
    operationId: 'changeCertificateAccess',
    tags: [TAGS.management],
    summary: 'Change who may read a certificate',
    description:
      'Sets `public`, `certificatePin` or `externalId`; `null` removes a PIN or an externalId.',
    security: AUTHENTICATED,
    requestParams: { path: lookupPathSchema },
    requestBody: {
      required: true,
      content: { 'application/json': { schema: certificateAccessChangesBodySchema } },
    },
    responses: {
      ...success(
        200,
        'The changed certificate',
        certificateResponseSchema,
        'Certificate updated successfully',
        CERTIFICATE_EXAMPLE,
      ),
      ...errors('validation', ...authErrors, 'notFound', 'externalIdAlreadyRegistered'),
    },
  };

  const revokeCertificate: ZodOpenApiOperationObject = {
    operationId: 'revokeCertificate',
    tags: [TAGS.management],
    summary: 'Revoke a certificate',
    description:
      'Anchors a Revocation trustpoint on `networkId` and marks the certificate revoked.',
    security: AUTHENTICATED,
    requestParams: { path: lookupPathSchema, query: networkQuerySchema },
    responses: {
      ...success(
        200,
        'The revoked certificate',
        certificateResponseSchema,
        'Certificate revoked successfully',
        CERTIFICATE_EXAMPLE,
      ),
      ...errors(
        'validation',
        ...authErrors,
        'providerNotInPlan',
        'notFound',
        'outOfCredits',
        'networkUnavailable',
      ),
    },
  };

  const signCertificate: ZodOpenApiOperationObject = {
    operationId: 'signCertificate',
    tags: [TAGS.signature],
    summary: "Sign a certificate with the service's key",
    description:
      'Qualified users only. Signs the certificate (compact JWS, verifiable with the keys at ' +
      '`/.well-known/jwks.json`) and anchors a Signature trustpoint holding its double hash; the ' +
      "JWS is returned in that trustpoint's `signature`. A repeated request returns the first " +
      'signature with 200.',
    security: AUTHENTICATED,
    requestParams: { path: lookupPathSchema, query: networkQuerySchema },
    responses: {
      ...success(
        201,
        'The signed certificate',
        certificateResponseSchema,
        'Certificate signed successfully',
        CERTIFICATE_EXAMPLE,
      ),
      ...success(
        200,
        'Already signed: the certificate as signed before',
        certificateResponseSchema,
        'Certificate already signed',
        CERTIFICATE_EXAMPLE,
      ),
      ...errors(
        'validation',
        ...authErrors,
        'userNotQualified',
        'providerNotInPlan',
        'notFound',
        'outOfCredits',
        'networkUnavailable',
        'networkBusy',
      ),
    },
  };

  const reanchorCertificate: ZodOpenApiOperationObject = {
    operationId: 'reanchorCertificate',
    tags: [TAGS.management],
    summary: 'Re-anchor a certificate under hash version 2',
    description:
      'Issuer only. A certificate made under version 1 (no `data.hashVersion`: its hash covers ' +
      'the content or the file only) gets a new Evidence trustpoint on `networkId` (the ' +
      "certificate's own network by default) anchoring the version 2 root over every shown " +
      'field, for one credit; the answer comes once it is mined. The certificate then shows ' +
      '`hashVersion: 2`, its new `data.hash`, `selectiveDisclosure` and that Evidence; the ' +
      'earlier Evidence stays on chain, so copies saved before still verify (under version 1). ' +
      'Lookups by its unsalted digest and repeats (409) are unchanged. A certificate under ' +
      'version 2 already is returned with 200 and nothing spent. A revoked or signed ' +
      'certificate, or a URL certificate that recorded no sha256 of its bytes, is a 400.',
    security: AUTHENTICATED,
    requestParams: { path: lookupPathSchema, query: reanchorQuerySchema },
    responses: {
      ...success(
        201,
        'The certificate under hash version 2',
        certificateResponseSchema,
        'Certificate re-anchored successfully',
        CERTIFICATE_EXAMPLE,
      ),
      ...success(
        200,
        'Already under hash version 2: the certificate as it is',
        certificateResponseSchema,
        'Certificate already under hash version 2',
        CERTIFICATE_EXAMPLE,
      ),
      ...errors(
        'validation',
        ...authErrors,
        'providerNotInPlan',
        'notFound',
        'outOfCredits',
        'networkUnavailable',
        'networkBusy',
      ),
    },
  };

  const verifyTrustpoints: ZodOpenApiOperationObject = {
    operationId: 'verifyTrustpoints',
    tags: [TAGS.utils],
    summary: "Verify a certificate's trustpoints on chain",
    description:
      'Verification method 1: reads every trustpoint of the certificate on its network and ' +
      'reports, per trustpoint, whether hash and type match, plus the revoked status, and ' +
      '`issuer`: the issuing account and the origin the certificate names (the service trusts ' +
      'its own origin only: another is `issuerUntrusted`, and its document is never read). Who ' +
      'may verify a certificate is who may read it (see GET /certificates/{type}/{id}); wrong ' +
      'PINs count against the same limits.',
    security: OPTIONAL_AUTHENTICATION,
    requestParams: { path: lookupPathSchema, query: pinQuerySchema },
    responses: {
      ...success(
        200,
        'The verification',
        certificateVerificationResponseSchema,
        'Certificate verified',
        VERIFICATION_EXAMPLE,
      ),
      ...withPinAttemptLimit(errors('validation', ...authErrors, 'pinRequired', 'notFound')),
    },
  };

  const verifyPostedCertificate: ZodOpenApiOperationObject = {
    operationId: 'verifyPostedCertificate',
    tags: [TAGS.utils],
    summary: 'Verify a certificate JSON a holder has',
    description:
      "Verification method 1 for the copy in a holder's hands (saved at issuance, handed on, " +
      'possibly older than the stored record or changed): the service runs the same verifier ' +
      'as the CLI and the pages (`@trustpoint/verifier`) on the posted JSON (a certificate, with ' +
      'or without its response envelope), trusting only its own registries and asking only its ' +
      'own nodes. The hash is recomputed by the rules, the revocation found from the certID ' +
      'alone. `issuer` names the issuing account and origin: a certificate naming another ' +
      'origin than this service is `issuerUntrusted`, and that origin is never contacted. No ' +
      'token needed; nothing is stored. ' +
      postedVerificationLimitsDescription(options.postedVerifications),
    security: PUBLIC,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: z.looseObject({}) } },
    },
    responses: {
      ...success(
        200,
        'The verification',
        postedVerificationResponseSchema,
        'Certificate verified',
        POSTED_VERIFICATION_EXAMPLE,
      ),
      ...withPostedVerificationLimits(errors('validation')),
    },
  };

  const getPublishedFile: ZodOpenApiOperationObject = {
    operationId: 'getPublishedFile',
    tags: [TAGS.utils],
    summary: 'A published file',
    description:
      'Files certified with `publish=true`, by their SHA-256 (`data.fileHash`); readable without ' +
      'a token, always served as an attachment. One byte range may be asked for with `Range` ' +
      '(`bytes=0-1023`, `bytes=1024-`, `bytes=-512`; several ranges get the whole file).',
    security: PUBLIC,
    requestParams: {
      path: z.object({ fileHash: hashHexSchema }),
      header: z.object({
        range: z.string().optional().meta({ description: 'One byte range (RFC 9110 14.2)' }),
      }),
    },
    responses: {
      200: {
        description:
          'The file as uploaded, with the media type its part was uploaded with ' +
          '(`application/octet-stream` when that was missing or malformed)',
        // Any media type; OpenAPI 3.1 describes bytes by their media type, without a schema.
        content: { '*/*': {} },
      },
      206: {
        description: 'The byte range asked for, with `Content-Range: bytes <first>-<last>/<size>`',
        content: { '*/*': {} },
      },
      304: { description: "Not modified (`If-None-Match` with the file's ETag)" },
      416: {
        description:
          'The range starts beyond the end of the file (`Content-Range: bytes */<size>`)',
      },
      ...errors('validation', 'notFound'),
    },
  };

  const getJwks: ZodOpenApiOperationObject = {
    operationId: 'getJwks',
    tags: [TAGS.utils],
    summary: "The service's signing keys",
    description:
      'A JWK Set (RFC 7517), not the success envelope, so JOSE libraries can fetch it: the ' +
      'current key first, then keys retired by a key rotation, whose signatures stay valid.',
    security: PUBLIC,
    responses: {
      200: {
        description: 'The public keys of qualified signatures',
        content: { 'application/json': { schema: jwksSchema } },
      },
      ...errors(),
    },
  };

  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Trustpoint certificate API',
      // The version of the service interface this API implements (spec section 9).
      version: '2.6.0',
      description:
        'Certify content, assets, files and URLs with trustpoints anchored on EVM networks. ' +
        'Successes answer `{statusCode, message, data}`; errors `{statusCode, type, message, errors?}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/cert/v2' }],
    tags: [
      { name: TAGS.generation, description: 'Create certificates' },
      { name: TAGS.management, description: 'Read, list, change and revoke certificates' },
      { name: TAGS.signature, description: "Qualified signatures by the service's key" },
      {
        name: TAGS.utils,
        description: 'Verification, networks, published files and signing keys',
      },
      ...(options.webhooks === true
        ? [{ name: TAGS.webhooks, description: WEBHOOKS_TAG_DESCRIPTION }]
        : []),
      { name: TAGS.identity, description: IDENTITY_TAG_DESCRIPTION },
      { name: TAGS.account, description: ACCOUNT_TAG_DESCRIPTION },
      { name: ISSUER_DOMAINS_TAG, description: ISSUER_DOMAINS_TAG_DESCRIPTION },
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
      '/certificates': {
        post: idempotent(scoped(createCertificate, 'certify')),
        get: scoped(listCertificates, 'read'),
      },
      '/certificates/{type}/{id}': {
        get: scoped(getCertificate, 'read'),
        patch: idempotent(scoped(changeCertificateAccess, 'certify')),
      },
      '/certificates/{type}/{id}/pdf': { get: scoped(getCertificatePdf, 'read') },
      '/certificates/{type}/{id}/revoke': {
        patch: idempotent(scoped(revokeCertificate, 'certify')),
      },
      '/certificates/{type}/{id}/signature': {
        post: idempotent(scoped(signCertificate, 'certify')),
      },
      '/certificates/{type}/{id}/reanchor': {
        post: idempotent(scoped(reanchorCertificate, 'certify')),
      },
      '/trustpoints/{type}/{id}': { get: scoped(verifyTrustpoints, 'read') },
      '/trustpoints/verification': { post: verifyPostedCertificate },
      '/files/{fileHash}': { get: getPublishedFile },
      '/.well-known/jwks.json': { get: getJwks },
      '/networks': { get: networksOperation({ tag: TAGS.utils, errors: errors() }) },
      ...(options.webhooks === true
        ? webhookPaths({
            tag: TAGS.webhooks,
            security: AUTHENTICATED,
            errors,
            idempotent,
            scoped,
          })
        : {}),
      ...accountPaths({ tag: TAGS.account, security: AUTHENTICATED, errors, scoped }),
      ...issuerDomainsPaths({ security: AUTHENTICATED, errors, scoped }),
      ...identityPaths({
        tag: TAGS.identity,
        security: AUTHENTICATED,
        errors,
        idempotent,
        scoped,
      }),
    },
  });
}
