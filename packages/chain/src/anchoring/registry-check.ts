import { id, Interface } from 'ethers';
import type { NetworkConfig } from '../networks/network-config.js';
import { JsonRpcError, type JsonRpcClient } from '../rpc/json-rpc-client.js';

/** The role every Trustpoint registry asks of the account that writes to it. */
const REGISTRAR_ROLE = id('REGISTRAR_ROLE');
const accessControl = new Interface([
  'function hasRole(bytes32 role, address account) view returns (bool)',
]);

/** The registries a network writes to, by the name its networks file gives each. */
function registriesOf(network: NetworkConfig): [string, string][] {
  return [
    ['trustPointRegistry', network.trustPointRegistry],
    ['evidenceRepository', network.evidenceRepository],
    ...(network.statusRegistry === undefined
      ? []
      : ([['statusRegistry', network.statusRegistry]] as [string, string][])),
  ];
}

/**
 * What stops `registrar` writing to the network's registries, one sentence each (empty when
 * nothing): an address with no contract code (a typo, or another chain's deployment: a
 * transaction to it succeeds and records nothing), a contract that is no Trustpoint registry, or
 * a registry that does not grant the registrar REGISTRAR_ROLE (every batch would revert). A node
 * that does not answer throws: that is the node's check, not the registries'.
 */
export async function registryProblems(
  rpc: JsonRpcClient,
  network: NetworkConfig,
  registrar: string,
): Promise<string[]> {
  const problems = await Promise.all(
    registriesOf(network).map(async ([name, address]): Promise<string | undefined> => {
      const code = await rpc.call<string>('eth_getCode', [address, 'latest']);
      if (code === '0x' || code === '') {
        return `${name} ${address} has no contract code on chain ${String(network.chainId)}: a wrong address, or a deployment on another chain`;
      }
      let answer: string;
      try {
        answer = await rpc.call<string>('eth_call', [
          {
            to: address,
            data: accessControl.encodeFunctionData('hasRole', [REGISTRAR_ROLE, registrar]),
          },
          'latest',
        ]);
      } catch (error) {
        if (!(error instanceof JsonRpcError)) throw error;
        return `${name} ${address} is not a Trustpoint registry (it does not answer hasRole)`;
      }
      let granted: boolean;
      try {
        [granted] = accessControl.decodeFunctionResult('hasRole', answer) as unknown as [boolean];
      } catch {
        return `${name} ${address} is not a Trustpoint registry (it does not answer hasRole)`;
      }
      return granted
        ? undefined
        : `registrar ${registrar} does not hold REGISTRAR_ROLE on ${name} ${address}: grant it (grantRole by the registry's admin), or sign with the key the registries were deployed for`;
    }),
  );
  return problems.filter((problem): problem is string => problem !== undefined);
}
