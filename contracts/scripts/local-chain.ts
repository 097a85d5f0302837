#!/usr/bin/env node
// Runs the embedded development chain: a Hardhat JSON-RPC node on 127.0.0.1:8545 with the
// registries deployed, their addresses recorded in the deployments file. Ctrl-C stops it.
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { TrustPointRegistry__factory } from '../typechain-types';
import { deployTrustpoint } from '../src/deploy';
import { recordDeployment } from '../src/deployments-file';
import { HARDHAT_DEV_KEY, startHardhatNode } from '../src/hardhat-node';

async function main(): Promise<void> {
  const port = Number(process.env.CHAIN_PORT ?? '8545');
  const out =
    process.env.DEPLOYMENTS_FILE ?? join(process.cwd(), '.trustpoint', 'deployments.json');
  const host = process.env.CHAIN_HOST ?? '127.0.0.1';
  const node = await startHardhatNode({ host, port });
  const stop = () => {
    void node.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  // The node keeps its chain in memory, so every start deploys afresh and rewrites the entry.
  const deployer = new Wallet(HARDHAT_DEV_KEY, new JsonRpcProvider(node.url));
  const deployment = await deployTrustpoint(deployer);
  await recordDeployment(out, deployment);

  const unknownCall = TrustPointRegistry__factory.createInterface().encodeFunctionData(
    'getTrustPoint',
    ['did:trustpoint:certid:unknown', 0],
  );
  const call = `curl -s ${node.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"eth_call","params":[{"to":"${deployment.trustPointRegistry}","data":"${unknownCall}"},"latest"],"id":1}'`;
  console.log(`Trustpoint local chain ready on ${node.url} (chain id ${deployment.chainId})
  TrustPointRegistry   ${deployment.trustPointRegistry}
  EvidenceRepository   ${deployment.evidenceRepository}
  deployments file     ${out}

Check it answers:
  curl -s ${node.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"net_version","params":[],"id":1}'
Read a trustpoint that does not exist (reverts with data 0x16fd89cc, TrustPointNotFound):
  ${call}

Press Ctrl-C to stop.`);
}

main().catch((error: unknown) => {
  const shortMessage = (error as { shortMessage?: string }).shortMessage;
  console.error(shortMessage ?? (error instanceof Error ? error.message : String(error)));
  process.exit(1);
});
