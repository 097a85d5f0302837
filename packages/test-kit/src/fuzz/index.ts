// @trustpoint/test-kit/fuzz: the property-based HTTP fuzz of an API from its OpenAPI document.
export {
  fuzzSettingsFromEnv,
  operationsWithoutGenerator,
  runHttpFuzz,
  servedOperations,
} from './run-http-fuzz.js';
export type { FuzzedApi, FuzzSettings, HttpFuzzOutcome, HttpFuzzTarget } from './run-http-fuzz.js';
export type { FuzzAuthorization } from './fuzz-request.js';
export type { KnownValues } from './schema-values.js';
