// Public API of @trustpoint/http: the Express pieces both APIs share.

export { AccessTokens } from './access-tokens.js';
export {
  acknowledge,
  acknowledgementFor,
  MAX_PREFERRED_WAIT_SECONDS,
  parsePrefer,
} from './acknowledgement.js';
export type { AcknowledgementDefaults } from './acknowledgement.js';
export type { AccessTokenSettings } from './access-tokens.js';
export type { VerifiedToken } from './verify-access-token.js';
export { createApiApp } from './api-app.js';
export {
  beginIdempotentRequest,
  commitIdempotentChange,
  commitIdempotentChanges,
  DEFAULT_IDEMPOTENCY_SETTINGS,
  IDEMPOTENCY_KEY_HEADER,
  idempotencyClaimOf,
  idempotencyKeyHeaderSchema,
  idempotencyKeyHeaderSchemaFor,
  idempotencyKeyOf,
  IdempotencyKeys,
  idempotent,
  keyTakenOver,
  idempotentOperation,
  jsonBodyDigest,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  SEALED_ANSWER_PREFIX,
  type AnswerSealer,
  type HeldKey,
  type IdempotencyKeysOptions,
  type IdempotencySettings,
  type IdempotentRouteOptions,
} from './idempotency/index.js';
export {
  createApiServer,
  DEFAULT_API_SERVER_TIMEOUTS,
  type ApiServerTimeouts,
} from './api-server.js';
export type { ApiAppOptions, MountedApi } from './api-app.js';
export { REQUEST_ID_HEADER, requestId, requestIdOf } from './request-id.js';
export {
  API_DOCS_DOCUMENT_CSP,
  API_DOCS_DOCUMENT_PATH,
  API_DOCS_PAGE_CSP,
  API_DOCS_PAGE_PATH,
  apiDocs,
} from './api-docs.js';
export type { ApiDocsOptions } from './api-docs.js';
export { authenticate, optionalAuthenticate } from './authenticate.js';
export type { AuthenticateOptions } from './authenticate.js';
export { bearerToken, bearerTokenIfAny } from './bearer-token.js';
export { requestCredential, requestSubject } from './bearer-tokens.js';
export type { BearerTokens, Credential } from './bearer-tokens.js';
export { currentCredential, requireScope } from './require-scope.js';
export { clientAddress } from './client-address.js';
export { currentUser, optionalCurrentUser } from './current-user.js';
export { errorHandler } from './error-handler.js';
export type { ErrorHandlerOptions } from './error-handler.js';
export { DEFAULT_JSON_BODY_LIMIT, jsonBody, rawJsonOf } from './json-body.js';
export type { JsonBodyOptions } from './json-body.js';
export { networksOperation, networksRouter } from './networks-route.js';
export { trustDocumentRouter } from './trust-document-route.js';
export { notFoundHandler } from './not-found-handler.js';
export { acceptedResponse, preferHeaderSchema } from './openapi-acknowledgement.js';
export { openApiErrorResponses } from './openapi-error-responses.js';
export { REQUIRED_SCOPE_EXTENSION, scopedOperation } from './openapi-scope.js';
export {
  isAllowedAddress,
  isNonPublicAddressRefusal,
  PUBLIC_ADDRESSES_ONLY,
  publicAddressAgent,
  refusedAddressOf,
} from './public-address.js';
export type { AddressPolicy } from './public-address.js';
export {
  NonPublicAddressError,
  publicAddressFetch,
  type PublicAddressFetchOptions,
} from './public-address-fetch.js';
export { ConcurrencyLimit, type ConcurrencyLimitOptions } from './concurrency-limit.js';
export { SERVICE_BUSY_BODY, ServiceBusyError } from './service-busy.js';
export {
  DEFAULT_CORS_ORIGINS,
  parseCorsOrigins,
  publicReadCors,
  type CorsOrigins,
} from './public-read-cors.js';
export { rateLimit } from './rate-limit.js';
export { DatabaseRateLimitStore } from './database-rate-limit-store.js';
export { parseTrustProxy, type TrustProxy } from './trust-proxy.js';
export type { RateLimitOptions } from './rate-limit.js';
export { isSecretParameter, redactSecrets, requestLogger } from './request-logger.js';
export { HEADERS_TOO_LARGE_BODY } from './malformed-request.js';
export { requestTarget } from './request-target.js';
export { mintAccessToken } from './mint-access-token.js';
export type { AccessTokenClaims } from './mint-access-token.js';
export { sendSuccess } from './send-success.js';
export { TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER } from './token-settings.js';
export { TOO_MANY_REQUESTS_BODY, TooManyRequestsError } from './too-many-requests.js';
export { validate, validateRequest, type RequestPart, type ValidatedRequest } from './validate.js';
