import { isIP } from 'node:net';

/**
 * Express's `trust proxy` setting: which hops in front of the service are load balancers whose
 * `X-Forwarded-For` is believed. `false` (the default): none, the client is the socket's peer.
 * `true`: every hop (only behind a balancer that overwrites the header). A number: that many hops
 * from the service. A list: the balancers' addresses, CIDR ranges, or `loopback`, `linklocal`,
 * `uniquelocal`.
 */
export type TrustProxy = boolean | number | string[];

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32);
}

/**
 * Reads `TRUST_PROXY`: `false` or unset, `true`, a hop count, or a comma-separated list of
 * addresses, CIDR ranges and named ranges. Anything else is refused with a message naming `name`,
 * so a typo stops the start instead of silently trusting (or ignoring) a balancer.
 */
export function parseTrustProxy(value: string | undefined, name = 'TRUST_PROXY'): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (!Number.isSafeInteger(hops)) throw new Error(`${name}: ${text} hops is not a usable count`);
    return hops;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad !== undefined) {
    throw new Error(
      `${name} must be true, false, a number of hops, or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal; "${bad}" is none of them`,
    );
  }
  return entries;
}
