// Public API of @trustpoint/identity: who is calling, by API key, client-credentials token or a
// token of an external OpenID Connect provider.

export { ACCOUNT_TAG_DESCRIPTION, accountPaths } from './account-openapi.js';
export type { AccountPathsOptions } from './account-openapi.js';
export { ACCOUNT_PATH, accountRouter } from './account-router.js';
export {
  accountSchema,
  accountCreditMovementSchema,
  creditSpendSchema,
} from './account-schemas.js';
export { creditSpendView } from './credit-spend-view.js';
export {
  API_KEY_PREFIX,
  apiKeyDigest,
  apiKeyId,
  generateApiKey,
  isApiKeyId,
  looksLikeApiKey,
} from './api-key-format.js';
export {
  activeDescendants,
  apiKeyByDigest,
  apiKeyById,
  createApiKey,
  findApiKey,
  LAST_USED_PRECISION_MS,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from './api-keys.js';
export type { ApiKey, ApiKeyStatus, NewApiKey } from './api-keys.js';
export {
  API_KEYS_PATH,
  apiKeysRouter,
  apiKeyView,
  DEFAULT_MAX_API_KEYS_PER_USER,
  widerThanCreator,
} from './api-keys-router.js';
export type { ApiKeysRouterOptions } from './api-keys-router.js';
export { changeApiKeyScopes } from './change-api-key-scopes.js';
export type { ApiKeyScopesChange, ApiKeyScopesChanged } from './change-api-key-scopes.js';
export { revokeApiKeyChange } from './revoke-api-key-change.js';
export type { ApiKeyRevocation } from './revoke-api-key-change.js';
export { CLIENT_TOKEN_TTL_SECONDS, Identities } from './identities.js';
export type { ApiKeyCheck, IdentitiesOptions } from './identities.js';
export {
  BEARER_TOKENS_DESCRIPTION,
  CLIENT_BASIC_SCHEME,
  IDENTITY_SECURITY_SCHEMES,
  IDENTITY_TAG_DESCRIPTION,
  identityPaths,
} from './identity-openapi.js';
export type { IdentityPathsOptions } from './identity-openapi.js';
export { identityRouter } from './identity-router.js';
export type { IdentityRouterOptions } from './identity-router.js';
export {
  apiKeyViewSchema,
  changeApiKeyScopesBodySchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
  oauthErrorSchema,
  tokenResponseSchema,
} from './identity-schemas.js';
export { OidcIssuer } from './oidc-issuer.js';
export type { OidcKeyFetchOptions } from './oidc-issuer.js';
export { OIDC_ALGORITHMS, oidcIssuerConfigSchema, parseOidcIssuers } from './oidc-issuer-config.js';
export type { OidcAlgorithm, OidcIssuerConfig, OidcIssuerInput } from './oidc-issuer-config.js';
export { provisionUser } from './provision-user.js';
export {
  DEFAULT_TOKEN_FAILURES_PER_MINUTE,
  TOKEN_ENDPOINT_PATH,
  tokenEndpointRouter,
} from './token-endpoint-router.js';
export type { TokenEndpointOptions } from './token-endpoint-router.js';
