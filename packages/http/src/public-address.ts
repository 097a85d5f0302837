import { lookup } from 'node:dns/promises';
import type { Agent } from 'node:http';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Which non-public addresses the service may still call out to (URL certificates, webhooks).
 * By default none: private, loopback, link-local (metadata endpoints included), unique-local and
 * unspecified addresses are refused.
 */
export interface AddressPolicy {
  /** Addresses (`10.1.2.3`, `::1`) or CIDR ranges (`10.0.0.0/8`) allowed although non-public. */
  allowAddresses: readonly string[];
  /** Allows every non-public address: only for deployments that call their own intranet. */
  allowPrivateAddresses: boolean;
}

/**
 * Ranges refused although ipaddr.js (and so the agent) calls them unicast: IPv4-compatible IPv6
 * addresses (`::127.0.0.1`, `::169.254.169.254`), deprecated by RFC 4291, embed any IPv4 address,
 * and a network that still translates them would reach the private address inside.
 */
const DEPRECATED_EMBEDDING_RANGES = ['::/96'];

export const PUBLIC_ADDRESSES_ONLY: Readonly<AddressPolicy> = Object.freeze({
  allowAddresses: [],
  allowPrivateAddresses: false,
});

/**
 * An agent (http or https, as `url` asks) that refuses, at connect time, an address the policy
 * does not allow: the address actually connected to, after DNS, so a name that resolves to a
 * public address when checked and to a private one when used (rebinding) gets nowhere. One per
 * request, without keep-alive, so no socket outlives its check.
 */
export function publicAddressAgent(url: URL, policy: AddressPolicy): Agent {
  const filter = {
    allowPrivateIPAddress: policy.allowPrivateAddresses,
    allowIPAddressList: [...policy.allowAddresses],
    denyIPAddressList: policy.allowPrivateAddresses ? [] : DEPRECATED_EMBEDDING_RANGES,
    keepAlive: false,
  };
  return url.protocol === 'https:'
    ? new RequestFilteringHttpsAgent(filter)
    : new RequestFilteringHttpAgent(filter);
}

/** Whether a request failed because `publicAddressAgent` refused the address. */
export function isNonPublicAddressRefusal(error: unknown): boolean {
  return error instanceof Error && /is not allowed/.test(error.message);
}

function allowedByList(address: string, allow: readonly string[]): boolean {
  const parsed = ipaddr.parse(address);
  return allow.some((entry) => {
    if (isIP(entry) !== 0) return ipaddr.parse(entry).toString() === parsed.toString();
    try {
      const range = ipaddr.parseCIDR(entry);
      return parsed.kind() === range[0].kind() && parsed.match(range);
    } catch {
      return false;
    }
  });
}

/** Whether the policy lets the service connect to this IP address (the agent's rule). */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  if (policy.allowPrivateAddresses) return true;
  if (allowedByList(address, policy.allowAddresses)) return true;
  if (allowedByList(address, DEPRECATED_EMBEDDING_RANGES)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast';
}

/**
 * The first address of `hostname` the policy refuses, or undefined: a literal IP is checked as
 * it is, a name by what it resolves to now (a name that does not resolve passes: the address is
 * checked again when it is connected to). For refusing a URL when it is registered, with the
 * reason, rather than only when it is used.
 */
export async function refusedAddressOf(
  hostname: string,
  policy: AddressPolicy,
): Promise<string | undefined> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      return undefined;
    }
  }
  return addresses.find((address) => !isAllowedAddress(address, policy));
}
