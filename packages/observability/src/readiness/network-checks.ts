import {
  JsonRpcClient,
  registryProblems,
  withoutNodeUrls,
  type NetworkConfig,
  type NetworkHealth,
} from '@trustpoint/chain';
import { computeAddress, formatEther } from 'ethers';
import type { ReadinessCheck } from './readiness-check.js';

export interface NetworkChecksOptions {
  networks: readonly NetworkConfig[];
  /**
   * What this process's anchoring engine last found (`engine.networkHealth`): when it knows what
   * the next batch needs, the registrar must hold that much; otherwise anything above zero.
   */
  health?: (networkId: string) => NetworkHealth | undefined;
  /** Per JSON-RPC call. Default 2 s. */
  rpcTimeoutMs?: number;
}

/**
 * Per network, `network:<id>:node` (the node answers with the configured chain id),
 * `network:<id>:registrar` (the registrar can pay for a batch) and `network:<id>:registries`
 * (each registry is a contract that grants the registrar REGISTRAR_ROLE: an address without code
 * would take batches and record nothing). The node's URL is never shown: it may carry an API key.
 */
export function networkChecks(options: NetworkChecksOptions): ReadinessCheck[] {
  const timeoutMs = options.rpcTimeoutMs ?? 2_000;
  return options.networks.flatMap((network): ReadinessCheck[] => {
    const rpc = new JsonRpcClient(network.rpcUrl, timeoutMs);
    const registrar = computeAddress(network.signerKey);
    const prefix = `network:${network.networkId}`;
    return [
      {
        name: `${prefix}:node`,
        run: async () => {
          let chainId: number;
          try {
            chainId = Number(await rpc.call<string>('eth_chainId', []));
          } catch (error) {
            // fetch's messages name no URL (which may carry an API key); its cause says why.
            const cause = (error as { cause?: { code?: unknown } }).cause?.code;
            const why = withoutNodeUrls(error instanceof Error ? error.message : String(error));
            throw new Error(`node unreachable: ${typeof cause === 'string' ? cause : why}`);
          }
          if (chainId !== network.chainId) {
            throw new Error(
              `node answers chain id ${String(chainId)}, configured ${String(network.chainId)}`,
            );
          }
          return `chain id ${String(chainId)}`;
        },
      },
      {
        name: `${prefix}:registrar`,
        run: async () => {
          const balance = await rpc.balance(registrar);
          const health = options.health?.(network.networkId);
          const required = health?.requiredWei === undefined ? 1n : BigInt(health.requiredWei);
          if (balance < required) {
            throw new Error(
              `registrar ${registrar} holds ${formatEther(balance)}, needs ${formatEther(required)} for the next batch: fund it`,
            );
          }
          return `registrar ${registrar} holds ${formatEther(balance)}`;
        },
      },
      {
        name: `${prefix}:registries`,
        run: async () => {
          const problems = await registryProblems(rpc, network, registrar);
          if (problems.length > 0) throw new Error(problems.join('; '));
          return `the registrar may write to ${network.statusRegistry === undefined ? 'both' : 'all three'} registries`;
        },
      },
    ];
  });
}
