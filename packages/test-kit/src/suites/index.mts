// @trustpoint/test-kit/suites: tests both APIs declare alike (vitest): the security suites on each
// backend around one API, the refused-token cases, the unstorable-text test, the HTTP fuzz, an
// API app run as a deployment runs it.
export { callerAuthorizations, describeHttpFuzz } from './http-fuzz-tests.mjs';
export type { FuzzedService } from './http-fuzz-tests.mjs';
export { refusedTokenTests } from './refused-token-tests.mjs';
export type { RefusedTokenWorld } from './refused-token-tests.mjs';
export { describeSecuritySuites } from './security-suites.mjs';
export type { SecuritySuite } from './security-suites.mjs';
export { unstorableTextTest } from './unstorable-text-test.mjs';
export { describeServiceApp } from './service-app-tests.mjs';
export type { ServiceApp } from './service-app-tests.mjs';
export { isolationTests } from './isolation-tests.mjs';
export { deliveringWebhooks } from './webhook-delivery.mjs';
export type { WebhookDeliveryWorld } from './webhook-delivery.mjs';
