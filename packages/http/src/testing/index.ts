// @trustpoint/http/testing: what the APIs' tests share; never imported by a running service.

export { checkedRequest, checkServedResponse, servedDocumentChecker } from './checked-request.js';
export type { CheckedAgent } from './checked-request.js';
export { OpenApiMismatchError, OpenApiResponseChecker } from './openapi-response-checker.js';
export type { ObservedResponse, OpenApiDocument } from './openapi-response-checker.js';
export { trickleRequest } from './slow-client.js';
export type { SlowClientResult, TrickleOptions } from './slow-client.js';
