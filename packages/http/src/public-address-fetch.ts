import { lookup as systemLookup, Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { isAllowedAddress, PUBLIC_ADDRESSES_ONLY, type AddressPolicy } from './public-address.js';

export interface PublicAddressFetchOptions {
  /**
   * The DNS servers names are resolved with (`host` or `host:port`, as `TRUSTPOINT_DNS_SERVERS`);
   * the system's resolver when none.
   */
  dnsServers?: readonly string[] | undefined;
  /** Non-public addresses allowed all the same; none by default. */
  policy?: AddressPolicy | undefined;
  /**
   * URLs the caller chose itself (its own JSON-RPC nodes, which may well be on 127.0.0.1 or a
   * private network): fetched as they are, with the global `fetch`. Every other URL is guarded.
   */
  passThrough?: ((url: URL) => boolean) | undefined;
}

/** Why a name (or an address) was not connected to: it is not public. */
export class NonPublicAddressError extends Error {
  override readonly name = 'NonPublicAddressError';
  readonly host: string;
  readonly address: string;

  constructor(host: string, address: string) {
    super(
      `${host === address ? address : `${host} resolves to ${address}`}, ${rangeOf(address)} address: only public addresses are fetched`,
    );
    this.host = host;
    this.address = address;
  }
}

/** What kind of address it is, for a person: `a loopback`, `a link local`, `an unspecified`. */
function rangeOf(address: string): string {
  const range = ipaddr.process(address).range();
  // Only IPv4-compatible IPv6 addresses (`::127.0.0.1`) are refused while ipaddr.js calls them unicast.
  const words =
    range === 'unicast' ? 'IPv4-compatible IPv6' : range.replace(/([A-Z])/g, ' $1').toLowerCase();
  return `${/^(?:[aeio]|un(?!i)|IPv)/.test(words) ? 'an' : 'a'} ${words}`;
}

/** Every address of `hostname`: on the given servers (A and AAAA), else the system's resolver. */
async function addressesOf(
  hostname: string,
  resolver: Resolver | undefined,
): Promise<LookupAddress[]> {
  if (resolver === undefined) return systemLookup(hostname, { all: true, verbatim: true });
  const [v4, v6] = await Promise.allSettled([
    resolver.resolve4(hostname),
    resolver.resolve6(hostname),
  ]);
  const addresses = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (addresses.length === 0) {
    throw v4.status === 'rejected' ? (v4.reason as Error) : new Error(`${hostname} has no address`);
  }
  return addresses;
}

/**
 * The `lookup` the sockets connect with: it resolves the name once, refuses it when any address
 * is not allowed, and hands the socket only the addresses it checked, so what is connected to is
 * what was checked (no second resolution a rebinding DNS could answer differently).
 */
function checkedLookup(policy: AddressPolicy, resolver: Resolver | undefined): LookupFunction {
  return (hostname, options, callback) => {
    addressesOf(hostname, resolver)
      .then((found) => {
        const refused = found.find((entry) => !isAllowedAddress(entry.address, policy));
        if (refused !== undefined) throw new NonPublicAddressError(hostname, refused.address);
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = found.filter((entry) => family === undefined || entry.family === family);
        const [first] = usable;
        if (first === undefined) throw new Error(`${hostname} has no IPv${String(family)} address`);
        if (options.all === true) callback(null, usable);
        else callback(null, first.address, first.family);
      })
      .catch((error: unknown) => {
        callback(error as NodeJS.ErrnoException, '', 0);
      });
  };
}

/** The first `NonPublicAddressError` in an error's causes. */
function nonPublicCause(error: unknown): NonPublicAddressError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof NonPublicAddressError) return cause;
  }
  return undefined;
}

/**
 * A `fetch` for URLs someone else chose (an origin a certificate names): it connects only to
 * public addresses (no loopback, private, link-local, unique-local, unspecified, multicast or
 * reserved address, IPv4 or IPv6, mapped forms included; `isAllowedAddress`, as the service's
 * other outgoing requests), resolving the name once, at connect time, and connecting to the
 * address it checked. Redirects are never followed, no connection is kept for later. A refusal
 * rejects as `fetch` does (a `TypeError`), its message saying why, its cause the
 * `NonPublicAddressError`. URLs `passThrough` accepts go to the global `fetch` as they are.
 */
export function publicAddressFetch(options: PublicAddressFetchOptions = {}): typeof fetch {
  const policy = options.policy ?? PUBLIC_ADDRESSES_ONLY;
  let resolver: Resolver | undefined;
  if (options.dnsServers !== undefined && options.dnsServers.length > 0) {
    resolver = new Resolver({ timeout: 5000, tries: 2 });
    resolver.setServers([...options.dnsServers]);
  }
  // Without keep-alive (pipelining 0): no socket outlives the request it was checked for.
  const dispatcher = new Agent({
    connect: { lookup: checkedLookup(policy, resolver) },
    pipelining: 0,
  });
  return async (input, init) => {
    if (input instanceof Request)
      throw new TypeError('publicAddressFetch takes a URL, not a Request');
    const url = new URL(input);
    if (options.passThrough?.(url) === true) return globalThis.fetch(input, init);
    // A literal address is connected to without a lookup: checked here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !isAllowedAddress(host, policy)) {
      const refusal = new NonPublicAddressError(host, host);
      throw new TypeError(refusal.message, { cause: refusal });
    }
    try {
      // undici's own types of a request's body differ from those of Node's bundled copy.
      const response = await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: 'error',
        dispatcher,
      });
      // The caller gets the global Response its types promise, on the same body stream.
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
      });
    } catch (error) {
      const refusal = nonPublicCause(error);
      if (refusal === undefined) throw error;
      throw new TypeError(refusal.message, { cause: refusal });
    }
  };
}
