import { DEFAULT_DNS_OVER_HTTPS_RESOLVER } from '@trustpoint/verifier';
import { pageStorage } from './page-storage.js';

const STORAGE_KEY = 'trustpoint-verifier:dns-resolver';

/**
 * The DNS-over-HTTPS resolver (JSON API) the page asks for the record that proves the domain a
 * certificate names as its issuer: the user's, remembered in this browser, else a public one.
 * The resolver sees the domain asked for, nothing else.
 */
export function savedDnsResolver(): string {
  try {
    return pageStorage().getItem(STORAGE_KEY) ?? DEFAULT_DNS_OVER_HTTPS_RESOLVER;
  } catch {
    return DEFAULT_DNS_OVER_HTTPS_RESOLVER;
  }
}

/** The resolver as the user typed it: an http(s) URL, remembered; empty means the default. */
export function dnsResolverOf(typed: string): string {
  const text = typed.trim();
  if (text === '') return DEFAULT_DNS_OVER_HTTPS_RESOLVER;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${typed}" is not a DNS-over-HTTPS resolver URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`"${typed}" is not a DNS-over-HTTPS resolver URL`);
  }
  try {
    pageStorage().setItem(STORAGE_KEY, url.toString());
  } catch {
    // Not remembered past this page.
  }
  return url.toString();
}
