import type { AddressPolicy } from '@trustpoint/http';

/**
 * How the service fetches the URL of a URL certificate. The address policy (`allowAddresses`,
 * `allowPrivateAddresses`) is checked against the address actually connected to, after DNS
 * resolution, on every hop; webhooks apply the same policy (`@trustpoint/http`).
 */
export interface UrlFetchSettings extends AddressPolicy {
  /** Milliseconds to establish a connection (per hop). */
  connectTimeoutMs: number;
  /** Milliseconds for the whole fetch, redirects and body included. */
  totalTimeoutMs: number;
  /** Largest accepted response body, in bytes. */
  maxBytes: number;
  /** Redirects followed (each hop checked like the first); 0 refuses redirects. */
  maxRedirects: number;
}

/** Safe defaults: only public addresses, 5 s to connect, 15 s in all, 10 MiB, 5 redirects. */
export const DEFAULT_URL_FETCH_SETTINGS: Readonly<UrlFetchSettings> = Object.freeze({
  allowAddresses: [],
  allowPrivateAddresses: false,
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 15_000,
  maxBytes: 10 * 1024 ** 2,
  maxRedirects: 5,
});
