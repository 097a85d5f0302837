export {
  openAnswerBody,
  sealAnswerBody,
  SEALED_ANSWER_PREFIX,
  type AnswerSealer,
} from './answer-sealer.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeyOf,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './idempotency-key-header.js';
export { IdempotencyKeys, type HeldKey, type IdempotencyKeysOptions } from './idempotency-keys.js';
export { DEFAULT_IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './idempotency-settings.js';
export {
  beginIdempotentRequest,
  commitIdempotentChange,
  commitIdempotentChanges,
  idempotencyClaimOf,
  idempotent,
  keyTakenOver,
  type IdempotentRouteOptions,
} from './idempotent.js';
export { jsonBodyDigest, requestFingerprint } from './request-fingerprint.js';
export {
  idempotencyKeyHeaderSchema,
  idempotencyKeyHeaderSchemaFor,
  idempotentOperation,
} from './openapi-idempotency.js';
