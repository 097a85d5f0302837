#!/usr/bin/env node
// Deploys the Trustpoint registries to a JSON-RPC endpoint and records their addresses in a
// deployments file that the services read. Re-running against a chain where the recorded
// registries still exist reuses them, unless --force is given.
import { parseArgs } from 'node:util';
import { JsonRpcProvider, Wallet } from 'ethers';
import { deployTrustpoint, type TrustpointDeployment } from '../src/deploy';
import { ensureDeployment, recordDeployment } from '../src/deployments-file';
import { HARDHAT_CHAIN_ID, HARDHAT_DEV_KEY } from '../src/hardhat-node';

const USAGE = `Usage: trustpoint-deploy [options]
  --rpc-url URL         JSON-RPC endpoint (env RPC_URL; default http://127.0.0.1:8545)
  --out FILE            deployments file to update (env DEPLOYMENTS_FILE; default deployments.json)
  --admin ADDRESS       account that manages roles (default: the deployer)
  --registrar ADDRESS   account allowed to record (default: the deployer)
  --confirmations N     blocks to wait per deployment (default 1)
  --force               deploy again even if the recorded registries exist
The deployer key is read from env DEPLOYER_KEY; on a local Hardhat chain (31337) it defaults to
the node's well-known development account.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'rpc-url': { type: 'string' },
      out: { type: 'string' },
      admin: { type: 'string' },
      registrar: { type: 'string' },
      confirmations: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const rpcUrl = values['rpc-url'] ?? process.env.RPC_URL ?? 'http://127.0.0.1:8545';
  const out = values.out ?? process.env.DEPLOYMENTS_FILE ?? 'deployments.json';
  const confirmations = Number(values.confirmations ?? '1');
  if (!Number.isInteger(confirmations) || confirmations < 1) {
    throw new Error('--confirmations must be a positive integer');
  }

  const provider = new JsonRpcProvider(rpcUrl, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const { chainId } = await provider.getNetwork();
  const key =
    process.env.DEPLOYER_KEY ?? (chainId === HARDHAT_CHAIN_ID ? HARDHAT_DEV_KEY : undefined);
  if (!key) throw new Error(`DEPLOYER_KEY is required to deploy to chain ${chainId.toString()}`);

  const deployer = new Wallet(key, provider);
  const options = {
    ...(values.admin ? { admin: values.admin } : {}),
    ...(values.registrar ? { registrar: values.registrar } : {}),
    confirmations,
  };
  let deployment: TrustpointDeployment;
  if (values.force) {
    deployment = await deployTrustpoint(deployer, options);
    await recordDeployment(out, deployment);
  } else {
    const ensured = await ensureDeployment(deployer, out, options);
    deployment = ensured.deployment;
    if (ensured.reused) {
      console.log(`Chain ${chainId.toString()}: registries already deployed, reusing them`);
      console.log(JSON.stringify(deployment, null, 2));
      return;
    }
  }
  console.log(`Chain ${deployment.chainId}: registries deployed, recorded in ${out}`);
  console.log(JSON.stringify(deployment, null, 2));
}

main().catch((error: unknown) => {
  // ethers errors carry the whole transaction in `message`; the short form is what a person needs.
  const shortMessage = (error as { shortMessage?: string }).shortMessage;
  console.error(shortMessage ?? (error instanceof Error ? error.message : String(error)));
  process.exitCode = 1;
});
