// @trustpoint/test-kit/security: the cases both APIs' security suites run (refused tokens,
// isolation of users, scopes of API keys, text a database cannot store).
export { acceptedAuthorization, REFUSED_TOKEN_CASES, refusedTokenBody } from './refused-tokens.js';
export type {
  AuthenticationMessage,
  RefusedTokenCase,
  TokenCaseContext,
} from './refused-tokens.js';
export { expireApiKeyIn, tokenCaseContext } from './token-case-context.js';
export type { TokenCaseContextInput } from './token-case-context.js';
export {
  documentedOperations,
  expectRefusedAndUnchanged,
  SHARED_ISOLATION_CASES,
  webhookEventOf,
} from './isolation-cases.js';
export type { IsolationCase, IsolationWorld, Party } from './isolation-cases.js';
export { checkEveryOperationScope, requiredScopeOf } from './scope-cases.js';
export type { ScopeCheckWorld } from './scope-cases.js';
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
