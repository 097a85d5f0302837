#!/usr/bin/env node
// Deploys the Trustpoint registries and the network's status registry to a JSON-RPC endpoint and
// records their addresses in a deployments file that the services read. Re-running against a chain
// where the recorded registries still exist reuses them, unless --force is given.
import { parseArgs } from 'node:util';
import {
  HARDHAT_CHAIN_ID,
  HARDHAT_DEV_KEY,
  type TrustpointDeployment,
} from '@trustpoint/registry-abi';
import { FetchRequest, JsonRpcProvider, Wallet } from 'ethers';
import { deployTrustpoint, type DeployOptions } from '../src/deploy';
import { ensureDeployment, recordDeployment } from '../src/deployments-file';
import { verifyDeploymentSources, type SourceVerificationOptions } from '../src/verify-sources';

const USAGE = `Usage: trustpoint-deploy [options]
  --rpc-url URL         JSON-RPC endpoint (env RPC_URL; default http://127.0.0.1:8545)
  --out FILE            deployments file to update (env DEPLOYMENTS_FILE; default deployments.json)
  --admin ADDRESS       account that manages roles (default: the deployer)
  --registrar ADDRESS   account allowed to record (default: the deployer)
  --confirmations N     blocks to wait per deployment (default 1)
  --registries KIND     batches (default: large batches kept as contract code, under half
                        the gas a record) or slots (one storage slot a record, as deployments
                        made before batch registries)
  --force               deploy again even if the recorded registries exist; records already
                        anchored stay verifiable on the registries that hold them
  --verify              submit the registries' sources for verification (also for a reused
                        deployment: run again with --verify when an explorer was not ready)
                        to an Etherscan-compatible explorer when ETHERSCAN_API_KEY is set, and
                        to Sourcify unless --skip-sourcify
  --etherscan-api-url URL  explorer API (env ETHERSCAN_API_URL); default Etherscan's multichain
                        API, which finds the chain by its id (Sepolia, Polygon Amoy, ...);
                        Blockscout: https://<explorer>/api
  --explorer-url URL    explorer pages, for the links printed (env EXPLORER_URL)
  --sourcify-url URL    Sourcify server (env SOURCIFY_API_URL; default https://sourcify.dev/server)
  --skip-sourcify       do not submit to Sourcify
The deployer key is read from env DEPLOYER_KEY; on a local Hardhat chain (31337) it defaults to
the node's well-known development account. Env RPC_AUTHORIZATION is sent as the Authorization
header of every request: the embedded chain of trustpoint start takes transactions only with
"Bearer $(cat <TRUSTPOINT_DATA_DIR>/chain/write-key)".`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'rpc-url': { type: 'string' },
      out: { type: 'string' },
      admin: { type: 'string' },
      registrar: { type: 'string' },
      confirmations: { type: 'string' },
      registries: { type: 'string', default: 'batches' },
      force: { type: 'boolean', default: false },
      verify: { type: 'boolean', default: false },
      'etherscan-api-url': { type: 'string' },
      'explorer-url': { type: 'string' },
      'sourcify-url': { type: 'string' },
      'skip-sourcify': { type: 'boolean', default: false },
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

  // A node that takes writes only with a credential: the embedded chain's relay
  // (`Bearer <TRUSTPOINT_DATA_DIR>/chain/write-key`), an RPC provider's header.
  const request = new FetchRequest(rpcUrl);
  const authorization = process.env.RPC_AUTHORIZATION;
  if (authorization !== undefined && authorization !== '') {
    request.setHeader('Authorization', authorization);
  }
  const provider = new JsonRpcProvider(request, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const { chainId } = await provider.getNetwork();
  const key =
    process.env.DEPLOYER_KEY ?? (chainId === HARDHAT_CHAIN_ID ? HARDHAT_DEV_KEY : undefined);
  if (!key) throw new Error(`DEPLOYER_KEY is required to deploy to chain ${chainId.toString()}`);

  const deployer = new Wallet(key, provider);
  const registries = values.registries;
  if (registries !== 'batches' && registries !== 'slots') {
    throw new Error('--registries must be batches or slots');
  }
  const options: DeployOptions = {
    registries,
    ...(values.admin ? { admin: values.admin } : {}),
    ...(values.registrar ? { registrar: values.registrar } : {}),
    confirmations,
  };
  let deployment: TrustpointDeployment;
  if (values.force) {
    deployment = await deployTrustpoint(deployer, options);
    await recordDeployment(out, deployment);
    console.log(`Chain ${deployment.chainId}: registries deployed, recorded in ${out}`);
  } else {
    const ensured = await ensureDeployment(deployer, out, options);
    deployment = ensured.deployment;
    console.log(
      ensured.reused
        ? `Chain ${chainId.toString()}: registries already deployed, reusing them`
        : `Chain ${deployment.chainId}: registries deployed, recorded in ${out}`,
    );
  }
  console.log(JSON.stringify(deployment, null, 2));
  if (values.verify) await verifySources(deployment, values);
}

/** `--verify`: submits the sources and prints one line per contract and verifier. */
async function verifySources(
  deployment: TrustpointDeployment,
  values: {
    'etherscan-api-url'?: string | undefined;
    'explorer-url'?: string | undefined;
    'sourcify-url'?: string | undefined;
    'skip-sourcify'?: boolean | undefined;
  },
): Promise<void> {
  const apiKey = process.env.ETHERSCAN_API_KEY;
  const apiUrl = values['etherscan-api-url'] ?? process.env.ETHERSCAN_API_URL;
  const browserUrl = values['explorer-url'] ?? process.env.EXPLORER_URL;
  const sourcifyUrl = values['sourcify-url'] ?? process.env.SOURCIFY_API_URL;
  const targets: SourceVerificationOptions = {
    ...(apiKey
      ? {
          etherscan: {
            apiKey,
            ...(apiUrl ? { apiUrl } : {}),
            ...(browserUrl ? { browserUrl } : {}),
          },
        }
      : {}),
    ...(values['skip-sourcify'] ? {} : { sourcify: sourcifyUrl ? { apiUrl: sourcifyUrl } : {} }),
  };
  if (!apiKey)
    console.log('ETHERSCAN_API_KEY is not set: not submitting to an Etherscan-compatible explorer');
  const outcomes = await verifyDeploymentSources(deployment, targets);
  for (const outcome of outcomes) {
    console.log(
      `${outcome.contract} ${outcome.address} on ${outcome.verifier}: ${outcome.status} (${outcome.detail})`,
    );
  }
  if (outcomes.some((outcome) => outcome.status === 'failed')) process.exitCode = 1;
}

main().catch((error: unknown) => {
  // ethers errors carry the whole transaction in `message`; the short form is what a person needs.
  const { shortMessage, error: reply } = error as {
    shortMessage?: string;
    error?: { message?: unknown };
  };
  const message = shortMessage ?? (error instanceof Error ? error.message : String(error));
  // The node's own words (a refusal ethers cannot classify is only "could not coalesce error").
  console.error(typeof reply?.message === 'string' ? `${message}: ${reply.message}` : message);
  process.exitCode = 1;
});
