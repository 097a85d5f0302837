import { publicAddressFetch } from '@trustpoint/http';
import type { PublicChain, RpcUrls } from '@trustpoint/verifier';

/**
 * The `fetch` `trustpoint verify` gives the verifier. The nodes you named (`--rpc`, a networks
 * file, the trust file's pins, the local chain) and the public endpoints you allowed are fetched
 * as they are: you chose them, and your own node may well be on 127.0.0.1. Any other URL, the
 * trust document of an issuing origin a certificate names, is fetched only at a public address:
 * its name resolved on `dnsServers` (else the system's resolver), refused when it resolves to a
 * loopback, private, link-local or otherwise non-public address, and connected to as checked.
 */
export function verifierFetchOf(
  rpc: RpcUrls,
  publicEndpoints: readonly PublicChain[] | undefined,
  dnsServers: readonly string[],
): typeof fetch {
  const chosen = new Set<string>();
  const add = (url: string) => {
    try {
      chosen.add(new URL(url).href);
    } catch {
      // Not a URL: the verifier reports it as a node that did not answer.
    }
  };
  for (const urls of Object.values(rpc)) urls.forEach(add);
  for (const chain of publicEndpoints ?? [])
    for (const endpoint of chain.endpoints) add(endpoint.url);
  return publicAddressFetch({ dnsServers, passThrough: (url) => chosen.has(url.href) });
}
