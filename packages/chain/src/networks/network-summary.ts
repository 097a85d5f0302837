import type { NetworkSummary } from '@trustpoint/domain';
import type { NetworkConfig } from './network-config.js';

/**
 * The public face of a network (GET /networks), picked member by member so that nothing secret
 * can slip in: never the registrar key, never the RPC URL (providers put API keys in it).
 * Networks whose `networkId` is not a decimal number are left out: requests cannot name them.
 */
export function networkSummaries(networks: readonly NetworkConfig[]): NetworkSummary[] {
  return networks.flatMap((network) => {
    if (!/^[1-9][0-9]{0,15}$/.test(network.networkId)) return [];
    return [
      {
        networkId: Number(network.networkId),
        name: network.name,
        chainId: network.chainId,
        trustPointRegistry: network.trustPointRegistry,
        evidenceRepository: network.evidenceRepository,
        explorerUrl: network.explorerUrl ?? null,
        confirmations: network.confirmations,
      },
    ];
  });
}
