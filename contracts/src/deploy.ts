import type { RegistryGeneration, TrustpointDeployment } from '@trustpoint/registry-abi';
import type { Signer } from 'ethers';
import {
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TrustPointStatusRegistry__factory,
} from '../typechain-types';

export interface DeployOptions {
  /** Account that manages roles; the deployer by default. */
  admin?: string;
  /** Account allowed to record; the deployer by default. */
  registrar?: string;
  /** Blocks to wait for after each deployment transaction. */
  confirmations?: number;
  /** Which registries to deploy: batch registries unless told otherwise. */
  registries?: RegistryGeneration;
}

/**
 * Deploys both registries and the status registry with the given signer and waits for them to be
 * mined.
 */
export async function deployTrustpoint(
  deployer: Signer,
  options: DeployOptions = {},
): Promise<TrustpointDeployment> {
  const provider = deployer.provider;
  if (!provider) throw new Error('The deployer signer has no provider');
  const deployerAddress = await deployer.getAddress();
  const admin = options.admin ?? deployerAddress;
  const registrar = options.registrar ?? deployerAddress;
  const confirmations = options.confirmations ?? 1;

  // Explicit consecutive nonces: providers may answer a second nonce query from a stale cache.
  const nonce = await provider.getTransactionCount(deployerAddress, 'pending');
  const registries = options.registries ?? 'batches';
  const registry = await (
    registries === 'batches'
      ? new TrustPointBatchRegistry__factory(deployer)
      : new TrustPointRegistry__factory(deployer)
  ).deploy(admin, registrar, { nonce });
  const registryReceipt = await registry.deploymentTransaction()?.wait(confirmations);
  const repository = await (
    registries === 'batches'
      ? new EvidenceBatchRepository__factory(deployer)
      : new EvidenceRepository__factory(deployer)
  ).deploy(admin, registrar, { nonce: nonce + 1 });
  const repositoryReceipt = await repository.deploymentTransaction()?.wait(confirmations);
  if (!registryReceipt || !repositoryReceipt)
    throw new Error('A deployment transaction was dropped');
  const statusRegistry = await deployStatusRegistry(deployer, { ...options, nonce: nonce + 2 });

  const network = await provider.getNetwork();
  return {
    chainId: network.chainId.toString(),
    trustPointRegistry: await registry.getAddress(),
    evidenceRepository: await repository.getAddress(),
    admin,
    registrar,
    blockNumber: repositoryReceipt.blockNumber,
    deployedAt: new Date().toISOString(),
    registries,
    statusRegistry,
  };
}

/**
 * Deploys a `TrustPointStatusRegistry` (admin and registrar as in `options`, the deployer by
 * default), waits for it to be mined and returns its address. One per network, kept for good.
 */
export async function deployStatusRegistry(
  deployer: Signer,
  options: Omit<DeployOptions, 'registries'> & { nonce?: number } = {},
): Promise<string> {
  const deployerAddress = await deployer.getAddress();
  const status = await new TrustPointStatusRegistry__factory(deployer).deploy(
    options.admin ?? deployerAddress,
    options.registrar ?? deployerAddress,
    options.nonce === undefined ? {} : { nonce: options.nonce },
  );
  const receipt = await status.deploymentTransaction()?.wait(options.confirmations ?? 1);
  if (!receipt) throw new Error('A deployment transaction was dropped');
  return status.getAddress();
}
