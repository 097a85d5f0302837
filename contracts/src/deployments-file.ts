// Writing the deployments file, and deploying what it lacks. Reading it is in
// @trustpoint/registry-abi, where the services find it without Hardhat.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readDeployments, type TrustpointDeployment } from '@trustpoint/registry-abi';
import type { Provider, Signer } from 'ethers';
import { deployStatusRegistry, deployTrustpoint, type DeployOptions } from './deploy';

/** Adds or replaces the entry of one chain; written atomically so a crash never leaves half a file. */
export async function recordDeployment(
  path: string,
  deployment: TrustpointDeployment,
): Promise<void> {
  const deployments = await readDeployments(path);
  deployments[deployment.chainId] = deployment;
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(deployments, null, 2)}\n`);
  await rename(temporary, path);
}

/**
 * Whether both registries of a recorded deployment, and its status registry when it names one,
 * still have code on the chain.
 */
export async function isDeployed(
  provider: Provider,
  deployment: TrustpointDeployment,
): Promise<boolean> {
  const addresses = [deployment.trustPointRegistry, deployment.evidenceRepository];
  if (deployment.statusRegistry) addresses.push(deployment.statusRegistry);
  const codes = await Promise.all(addresses.map((address) => provider.getCode(address)));
  return codes.every((code) => code !== '0x');
}

/**
 * The deployment recorded for the deployer's chain when its code is still there (`reused`);
 * otherwise deploys the registries with `options` and records them. What a restart relies on.
 * A reused deployment recorded before status registries existed gets one, deployed and recorded.
 */
export async function ensureDeployment(
  deployer: Signer,
  path: string,
  options: DeployOptions = {},
): Promise<{ deployment: TrustpointDeployment; reused: boolean }> {
  const provider = deployer.provider;
  if (!provider) throw new Error('The deployer signer has no provider');
  const { chainId } = await provider.getNetwork();
  const recorded = (await readDeployments(path))[chainId.toString()];
  if (recorded && (await isDeployed(provider, recorded))) {
    if (recorded.statusRegistry) return { deployment: recorded, reused: true };
    const statusRegistry = await deployStatusRegistry(deployer, {
      admin: recorded.admin,
      registrar: recorded.registrar,
      ...(options.confirmations === undefined ? {} : { confirmations: options.confirmations }),
    });
    const completed = { ...recorded, statusRegistry };
    await recordDeployment(path, completed);
    return { deployment: completed, reused: true };
  }
  const deployment = await deployTrustpoint(deployer, options);
  await recordDeployment(path, deployment);
  return { deployment, reused: false };
}
