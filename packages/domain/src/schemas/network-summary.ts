import { z } from 'zod';

import { evmAddressSchema } from './evm-address.js';
import { networkIdSchema } from './network-id.js';

/**
 * What anyone may know of a network the service anchors on (GET /networks): enough to verify a
 * record on it with a block explorer or one `eth_call`. Never the registrar key, nor the RPC URL,
 * which often carries a provider's API key.
 */
export const networkSummarySchema = z
  .object({
    networkId: networkIdSchema.meta({
      description: 'What requests pass as `networkId` (the EVM chain id by convention)',
      example: 11155111,
    }),
    name: z.string().meta({ example: 'Sepolia' }),
    chainId: z.number().int().positive().meta({ description: 'EVM chain id', example: 11155111 }),
    trustPointRegistry: evmAddressSchema.meta({
      description: 'Contract of certificate trustpoints: `getTrustPoint(certId, timestamp)`',
    }),
    evidenceRepository: evmAddressSchema.meta({
      description: 'Contract of asset evidences: `getEvidence(assetHash, timestamp)`',
    }),
    explorerUrl: z.url().nullable().meta({
      description: 'Block explorer of the network (Etherscan-style paths); null when none is known',
      example: 'https://sepolia.etherscan.io',
    }),
    confirmations: z.number().int().positive().meta({
      description: 'Blocks a trustpoint or evidence waits on before it counts as anchored',
    }),
  })
  .meta({ id: 'Network' });

export type NetworkSummary = z.infer<typeof networkSummarySchema>;

export const networkListSchema = z
  .object({ networks: z.array(networkSummarySchema) })
  .meta({ id: 'NetworkList' });
