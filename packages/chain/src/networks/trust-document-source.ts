import { TRUST_DOCUMENT_FORMAT, type TrustDocument } from '@trustpoint/domain';
import type { NetworkConfig } from './network-config.js';

/** A registry a stored record names (`listRegistriesInUse` of @trustpoint/db). */
export interface RegistryNamedByRecords {
  networkId: string;
  kind: 'trustPointRegistry' | 'evidenceRepository';
  address: string;
}

export interface TrustDocumentSourceOptions {
  /** The service's public origin (`TRUSTPOINT_PUBLIC_URL`): what verifiers trust. */
  origin: string;
  /** The operator's display name (`TRUSTPOINT_NAME`). */
  name: string;
  networks: () => readonly NetworkConfig[];
  registriesInUse: () => Promise<readonly RegistryNamedByRecords[]>;
  /** How long one document is served before it is built again. Default 60 s. */
  maxAgeMs?: number;
  fetch?: typeof fetch;
}

/**
 * Builds the service's trust document: per network the chain id, the genesis block's hash (read
 * once from the network's node) and every registry the service anchors in now or anchored in
 * before (so certificates of an earlier generation keep verifying). Built at most once a minute:
 * anonymous readers cost a bounded number of node calls and queries.
 */
export class TrustDocumentSource {
  readonly #options: TrustDocumentSourceOptions;
  readonly #genesis = new Map<string, string>();
  #cached: { document: TrustDocument; builtAt: number } | undefined;
  #building: Promise<TrustDocument> | undefined;

  constructor(options: TrustDocumentSourceOptions) {
    this.#options = options;
  }

  document(): Promise<TrustDocument> {
    const cached = this.#cached;
    if (cached !== undefined && Date.now() - cached.builtAt < (this.#options.maxAgeMs ?? 60_000)) {
      return Promise.resolve(cached.document);
    }
    this.#building ??= this.#build().finally(() => {
      this.#building = undefined;
    });
    return this.#building;
  }

  async #build(): Promise<TrustDocument> {
    const networks = this.#options
      .networks()
      .filter((network) => /^[1-9][0-9]{0,15}$/.test(network.networkId));
    const inUse = await this.#options.registriesInUse();
    const document: TrustDocument = {
      trustpoint: TRUST_DOCUMENT_FORMAT,
      origin: this.#options.origin,
      name: this.#options.name,
      networks: await Promise.all(
        networks.map(async (network) => {
          const registries: TrustDocument['networks'][number]['registries'] = [
            { kind: 'trustPointRegistry', address: network.trustPointRegistry },
            { kind: 'evidenceRepository', address: network.evidenceRepository },
            ...(network.statusRegistry === undefined
              ? []
              : [{ kind: 'statusRegistry' as const, address: network.statusRegistry }]),
          ];
          for (const earlier of inUse) {
            if (earlier.networkId !== network.networkId) continue;
            const known = registries.some(
              (registry) =>
                registry.kind === earlier.kind &&
                registry.address.toLowerCase() === earlier.address.toLowerCase(),
            );
            if (!known) registries.push({ kind: earlier.kind, address: earlier.address });
          }
          return {
            networkId: network.networkId,
            name: network.name,
            chainId: network.chainId,
            genesisHash: await this.#genesisOf(network),
            registries,
          };
        }),
      ),
    };
    this.#cached = { document, builtAt: Date.now() };
    return document;
  }

  async #genesisOf(network: NetworkConfig): Promise<string> {
    const known = this.#genesis.get(network.networkId);
    if (known !== undefined) return known;
    const response = await (this.#options.fetch ?? fetch)(network.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockByNumber',
        params: ['0x0', false],
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const reply = (await response.json()) as { result?: { hash?: unknown } | null };
    const hash = reply.result?.hash;
    if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
      throw new Error(`network ${network.networkId}: its node gave no genesis block hash`);
    }
    this.#genesis.set(network.networkId, hash.toLowerCase());
    return hash.toLowerCase();
  }
}
