import { DomainError, type FieldError } from '@trustpoint/domain';
import { readChainId } from '../rpc/json-rpc-provider.js';
import { NetworkConfigError } from './load-networks.js';
import { nodeLabel, withoutNodeUrls } from './node-label.js';
import type { NetworkConfig } from './network-config.js';

const UNKNOWN_NETWORK = 'Unknown or unconfigured network';

/** The networks this service anchors on, by `networkId`. */
export class NetworkRegistry {
  readonly #networks: ReadonlyMap<string, NetworkConfig>;

  constructor(networks: readonly NetworkConfig[]) {
    this.#networks = new Map(networks.map((network) => [network.networkId, network]));
  }

  list(): NetworkConfig[] {
    return [...this.#networks.values()];
  }

  get(networkId: string): NetworkConfig | undefined {
    return this.#networks.get(networkId);
  }

  /**
   * The problem of a request naming a network this service does not anchor on, on `field`: where
   * the request carried it (`query.networkId`, `body.networkId`); undefined for a known one.
   */
  unknownNetworkProblem(networkId: string, field: string): FieldError | undefined {
    return this.#networks.has(networkId) ? undefined : { field, error: UNKNOWN_NETWORK };
  }

  /** The network of a request; an unknown or unconfigured one is a validation error (400). */
  require(networkId: string, field = 'networkId'): NetworkConfig {
    const network = this.#networks.get(networkId);
    if (!network) {
      throw new DomainError('validation', {
        detail: `unknown networkId ${networkId}`,
        errors: [{ field, error: UNKNOWN_NETWORK }],
      });
    }
    return network;
  }

  /** As `require`, and the network must be among the user's plan networks (403 otherwise). */
  requireForUser(
    networkId: string,
    planNetworkIds: readonly string[],
    field = 'networkId',
  ): NetworkConfig {
    const network = this.require(networkId, field);
    if (!planNetworkIds.includes(networkId)) {
      throw new DomainError('providerNotInPlan', { detail: `network ${networkId} not in plan` });
    }
    return network;
  }

  /**
   * Checks that each node serves the configured chain. A mismatch always stops start-up; an
   * unreachable node does too when `requireReachable`, and is otherwise reported to `onUnreachable`
   * (the anchoring engine keeps retrying it).
   */
  async verifyChainIds(
    options: {
      requireReachable?: boolean;
      onUnreachable?: (network: NetworkConfig, error: Error) => void;
    } = {},
  ): Promise<void> {
    for (const network of this.#networks.values()) {
      let actual: number;
      try {
        actual = await readChainId(network.rpcUrl);
      } catch (error) {
        const reason = error instanceof Error ? error : new Error(String(error));
        if (options.requireReachable) {
          throw new NetworkConfigError(
            `Network ${network.networkId}: the node at ${nodeLabel(network.rpcUrl)} is unreachable (${withoutNodeUrls(reason.message)})`,
          );
        }
        options.onUnreachable?.(network, reason);
        continue;
      }
      if (actual !== network.chainId) {
        throw new NetworkConfigError(
          `Network ${network.networkId}: the node at ${nodeLabel(network.rpcUrl)} serves chain ${String(actual)}, but the configuration says ${String(network.chainId)}`,
        );
      }
    }
  }
}
