import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';
import { NodeIdentityCheck } from '../rpc/node-identity.js';
import type { PublicChain } from '../rpc/public-endpoints.js';
import { DevelopmentAccountCheck } from '../trust/development-accounts.js';
import type { Trust } from '../trust/trust.js';
import type { RpcUrls } from './rpc-urls.js';

/** What a verification shares between its lookups: the trust and the checks already made. */
export interface LookupContext extends JsonRpcOptions {
  rpc: RpcUrls;
  trust?: Trust | undefined;
  /**
   * Public endpoints of well-known chains, asked for a pinned network the user gave no node for;
   * their answers count only when two of different operators agree. None unless given.
   */
  publicEndpoints?: readonly PublicChain[] | undefined;
  identity: NodeIdentityCheck;
  developmentAccounts: DevelopmentAccountCheck;
}

export function lookupContext(
  options: JsonRpcOptions & {
    rpc: RpcUrls;
    trust?: Trust | undefined;
    publicEndpoints?: readonly PublicChain[] | undefined;
  },
): LookupContext {
  return {
    ...options,
    identity: new NodeIdentityCheck(options),
    developmentAccounts: new DevelopmentAccountCheck(options),
  };
}
