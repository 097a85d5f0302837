// @trustpoint/test-kit/openapi: requests whose answers are checked against the document the app serves.
export { checkedRequest, checkServedResponse, servedDocumentChecker } from './checked-request.js';
export type { CheckedAgent } from './checked-request.js';
export { OpenApiMismatchError, OpenApiResponseChecker } from './openapi-response-checker.js';
export type { ObservedResponse, OpenApiDocument } from './openapi-response-checker.js';
