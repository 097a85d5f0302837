export * from './client.js';
export * from './errors.js';
export { retryingFetch, type RetryOptions } from './retries.js';
export type * as CertApi from './generated/cert-api.js';
export type * as TrackApi from './generated/track-api.js';
