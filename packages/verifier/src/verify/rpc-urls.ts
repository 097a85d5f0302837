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

/**
 * Registry addresses a verifier trusts, per network id (`*` for any). A record is read from the
 * contract its JSON names; when the verifier lists contracts for that network, any other address
 * is a mismatch, since a contract the issuer chose could answer anything.
 */
export type TrustedContracts = Readonly<Record<string, readonly string[]>>;

/** Undefined when nothing is listed for the network: then any contract is read. */
export function isTrustedContract(
  contracts: TrustedContracts | undefined,
  networkId: number | string,
  address: string,
): boolean | undefined {
  const listed = contracts?.[String(networkId)] ?? contracts?.[ANY_NETWORK];
  if (listed === undefined) return undefined;
  return listed.some((candidate) => candidate.toLowerCase() === address.toLowerCase());
}
