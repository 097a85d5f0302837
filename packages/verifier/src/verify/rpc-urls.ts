/**
 * The JSON-RPC endpoints a verifier trusts, per network id (decimal text), tried in the given
 * order; the key `*` lists endpoints for any network not named. Only these are ever asked: the
 * service that issued a record never chooses the node that checks it.
 */
export type RpcUrls = Readonly<Record<string, readonly string[]>>;

export const ANY_NETWORK = '*';

export function rpcUrlsFor(rpc: RpcUrls, networkId: number | string): readonly string[] {
  return rpc[String(networkId)] ?? rpc[ANY_NETWORK] ?? [];
}
