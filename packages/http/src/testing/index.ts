// @trustpoint/http/testing: what the APIs' tests share; never imported by a running service.

export { checkedRequest, checkServedResponse, servedDocumentChecker } from './checked-request.js';
export type { CheckedAgent } from './checked-request.js';
export { OpenApiMismatchError, OpenApiResponseChecker } from './openapi-response-checker.js';
export type { ObservedResponse, OpenApiDocument } from './openapi-response-checker.js';
export { trickleRequest } from './slow-client.js';
export type { SlowClientResult, TrickleOptions } from './slow-client.js';
export { startOidcIssuerDouble } from './oidc-issuer-double.js';
export type { OidcIssuerDouble } from './oidc-issuer-double.js';
export { acceptedAuthorization, REFUSED_TOKEN_CASES, refusedTokenBody } from './refused-tokens.js';
export { tokenCaseContext } from './token-case-context.js';
export { databaseDigest } from './database-digest.js';
export {
  documentedOperations,
  expectRefusedAndUnchanged,
  SHARED_ISOLATION_CASES,
} from './isolation-cases.js';
export type { IsolationCase, IsolationWorld, Party } from './isolation-cases.js';
export { checkEveryOperationScope, requiredScopeOf } from './scope-cases.js';
export type { ScopeCheckWorld } from './scope-cases.js';
export type { TokenCaseContextInput } from './token-case-context.js';
export type {
  AuthenticationMessage,
  RefusedTokenCase,
  TokenCaseContext,
} from './refused-tokens.js';
export {
  fuzzSettingsFromEnv,
  operationsWithoutGenerator,
  runHttpFuzz,
  servedOperations,
} from './http-fuzz/run-http-fuzz.js';
export type {
  FuzzedApi,
  FuzzSettings,
  HttpFuzzOutcome,
  HttpFuzzTarget,
} from './http-fuzz/run-http-fuzz.js';
export type { FuzzAuthorization } from './http-fuzz/fuzz-request.js';
export type { KnownValues } from './http-fuzz/schema-values.js';
export {
  UNSTORABLE_TEXTS,
  unstorableTextCases,
  unstorableTextFailures,
} from './unstorable-text-cases.js';
export type {
  SentUnstorableTextCase,
  UnstorableTextCase,
  UnstorableTextOptions,
} from './unstorable-text-cases.js';
