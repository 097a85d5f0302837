export * from './client.js';
export * from './errors.js';
export { retryingFetch, type RetryOptions } from './retries.js';
export type * as CertApi from './generated/cert-api.js';
export type * as TrackApi from './generated/track-api.js';
/** The admin API's generated types (`/admin/v1`), as the `trustpoint admin` commands use them. */
export type * as AdminApi from './generated/admin-api.js';
/**
 * The verifier every Trustpoint client runs (`@trustpoint/verifier`): verify a certificate or an
 * evidence against nodes and a trust you give (pinned registries, or the trust documents of service
 * origins you trust). The SDK reads no default trust file: nothing is trusted unless you say so.
 */
export * as verifier from '@trustpoint/verifier';
