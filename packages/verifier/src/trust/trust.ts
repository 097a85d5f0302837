import { EVM_ADDRESS_PATTERN } from '../chain/eth-call-request.js';
import { PUBLIC_CHAINS } from '../rpc/public-endpoints.js';

/**
 * What a verifier trusts, and why: networks pinned by its user, or published by a service origin
 * its user trusts. Never what a certificate names: a certificate can name a contract the forger
 * deployed, which answers anything.
 */

/** The kinds of contract a network's pin lists. */
export type RegistryKind = 'trustPointRegistry' | 'evidenceRepository' | 'statusRegistry';

export const REGISTRY_KINDS: readonly RegistryKind[] = [
  'trustPointRegistry',
  'evidenceRepository',
  'statusRegistry',
];

/** A registry a verifier trusts, for the blocks it was current in. */
export interface PinnedRegistry {
  kind: RegistryKind;
  /** 0x and 40 hex characters (any case). */
  address: string;
  /** First block a record of it counts from (inclusive); from genesis when absent. */
  fromBlock?: number;
  /** Last block a record of it counts in (inclusive), once it was retired; open when absent. */
  toBlock?: number;
}

/** A network as a verifier pins it: which chain, and which of its registries. */
export interface PinnedNetwork {
  /** What certificates name as `networkId` (decimal text). */
  networkId: string;
  /** A node must answer this to `eth_chainId`. */
  chainId: number;
  /** A node must answer this (0x and 64 hex) as block 0's hash; chain ids collide between dev chains. */
  genesisHash?: string;
  registries: readonly PinnedRegistry[];
  /** Who pinned it: `you` (the user, a flag or a file) or the https origin whose document it is. */
  pinnedBy: string;
  /**
   * Pinned by this machine's own `trustpoint start`: its registries may be administered by the
   * development chain's well-known accounts. Anywhere else such a registry is never trusted,
   * since anybody holds those keys.
   */
  local?: boolean;
}

/** Everything a verifier trusts. The SDK takes it as an argument and reads no default file. */
export interface Trust {
  networks: readonly PinnedNetwork[];
  /**
   * The service origins you trust as issuers (normalised: `normalizeOrigin`). A certificate that
   * names its issuing origin (`data.issuerOrigin`) is `verified` only when that origin is one of
   * these and publishes the registry it is recorded in; `trustOfDocument` adds its document's.
   */
  origins?: readonly string[];
}

export const NO_TRUST: Trust = { networks: [] };

/** The pin under which `address` is a registry of `kind` on `networkId`, if any. */
export function findRegistryPin(
  trust: Trust | undefined,
  networkId: number | string,
  kind: RegistryKind,
  address: string,
): { network: PinnedNetwork; registry: PinnedRegistry } | undefined {
  for (const network of trust?.networks ?? []) {
    if (network.networkId !== String(networkId)) continue;
    const registry = network.registries.find(
      (candidate) =>
        candidate.kind === kind && candidate.address.toLowerCase() === address.toLowerCase(),
    );
    if (registry !== undefined) return { network, registry };
  }
  return undefined;
}

/** Every pin of a network (several sources may pin the same network). */
export function networkPins(trust: Trust | undefined, networkId: number | string): PinnedNetwork[] {
  return (trust?.networks ?? []).filter((network) => network.networkId === String(networkId));
}

/** Whether a block falls in a pinned registry's trusted range. */
export function isInRange(registry: PinnedRegistry, blockNumber: number): boolean {
  return (
    (registry.fromBlock === undefined || blockNumber >= registry.fromBlock) &&
    (registry.toBlock === undefined || blockNumber <= registry.toBlock)
  );
}

/** Merges trusts: every network and every origin of each, in order. */
export function combineTrust(...trusts: readonly (Trust | undefined)[]): Trust {
  const origins = [...new Set(trusts.flatMap((trust) => trust?.origins ?? []))];
  return {
    networks: trusts.flatMap((trust) => trust?.networks ?? []),
    ...(origins.length === 0 ? {} : { origins }),
  };
}

/**
 * Origins trusted as issuers without a document of theirs (a service trusting its own origin):
 * their certificates can be verified only in registries pinned by them (`pinnedBy`).
 */
export function trustOfOrigins(origins: readonly string[]): Trust {
  return { networks: [], origins };
}

/**
 * Pins given as `<networkId>=<address>` pairs (the CLI's `--contract`, a networks file) for one kind
 * of registry, by the user: the chain id is taken as the network id, as the service's networks are.
 * A well-known chain's id (Ethereum, Sepolia, Polygon, ...) pins its genesis block too, so a node of
 * another chain answering that id is refused; on any other id, give `genesisHash` (a networks
 * file's `genesisHash`), or a node of another chain of the same id (every dev chain is 31337) may
 * answer for it.
 */
export function trustOfContracts(
  contracts: Readonly<Record<string, readonly string[]>>,
  kind: RegistryKind,
  pinnedBy = 'you',
  /** Block 0's hash per network id, for chains that are not well known. */
  genesisHashes: Readonly<Record<string, string>> = {},
): Trust {
  return {
    networks: Object.entries(contracts).map(([networkId, addresses]) => {
      for (const address of addresses) {
        if (!EVM_ADDRESS_PATTERN.test(address)) {
          throw new TypeError(`Not a contract address: ${address}`);
        }
      }
      const chainId = Number(networkId);
      const genesisHash =
        genesisHashes[networkId] ??
        PUBLIC_CHAINS.find((chain) => chain.chainId === chainId)?.genesisHash;
      if (genesisHash !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(genesisHash)) {
        throw new TypeError(`Not a block hash: ${genesisHash}`);
      }
      return {
        networkId,
        chainId,
        ...(genesisHash === undefined ? {} : { genesisHash }),
        registries: addresses.map((address) => ({ kind, address })),
        pinnedBy,
      };
    }),
  };
}
