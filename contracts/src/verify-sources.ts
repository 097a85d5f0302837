import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Etherscan } from '@nomicfoundation/hardhat-verify/etherscan';
import { Sourcify } from '@nomicfoundation/hardhat-verify/sourcify';
import { REGISTRY_CONTRACTS, type TrustpointDeployment } from '@trustpoint/registry-abi';
import {
  EvidenceRepository__factory,
  TrustPointRegistry__factory,
  TrustPointStatusRegistry__factory,
} from '../typechain-types';

/** An Etherscan-compatible explorer API (Etherscan and its family, Blockscout, Routescan...). */
export interface EtherscanTarget {
  apiKey: string;
  /**
   * The explorer's API, e.g. Blockscout's `https://<host>/api`. Default: Etherscan's multichain
   * API (`https://api.etherscan.io/v2/api`, Sepolia, Amoy and the rest by the deployment's chain id).
   */
  apiUrl?: string;
  /** The explorer's pages, for the links printed; default `https://etherscan.io`. */
  browserUrl?: string;
}

export interface SourcifyTarget {
  /** Default `https://sourcify.dev/server`. */
  apiUrl?: string;
  /** Default `https://repo.sourcify.dev`. */
  browserUrl?: string;
}

export interface SourceVerificationOptions {
  etherscan?: EtherscanTarget;
  sourcify?: SourcifyTarget;
  /** Hardhat's `artifacts` folder of this package (build info, with the exact compiler input). */
  artifactsDir?: string;
}

/** What became of one contract on one verifier. */
export interface SourceVerificationOutcome {
  contract:
    | 'TrustPointRegistry'
    | 'EvidenceRepository'
    | 'TrustPointBatchRegistry'
    | 'EvidenceBatchRepository'
    | 'TrustPointStatusRegistry';
  address: string;
  verifier: 'etherscan' | 'sourcify';
  status: 'verified' | 'alreadyVerified' | 'failed';
  /** The explorer's page of the contract, or what went wrong. */
  detail: string;
}

export const ETHERSCAN_V2_API_URL = 'https://api.etherscan.io/v2/api';
export const SOURCIFY_API_URL = 'https://sourcify.dev/server';
const SOURCIFY_BROWSER_URL = 'https://repo.sourcify.dev';

interface BuildInfo {
  solcLongVersion: string;
  input: { sources: Record<string, { content: string }> };
  output: { contracts: Record<string, Record<string, { metadata: string }>> };
}

/** `artifacts/` beside `src/` (ts-node) or two levels up (compiled to `dist/src/`). */
function defaultArtifactsDir(): string {
  const candidates = [
    resolve(__dirname, '..', 'artifacts'),
    resolve(__dirname, '..', '..', 'artifacts'),
  ];
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0] ?? 'artifacts';
}

/** The compiler input and output the contract's artifact was built from (Hardhat's build info). */
async function buildInfoOf(artifactsDir: string, sourceName: string, contractName: string) {
  const debugFile = join(artifactsDir, sourceName, `${contractName}.dbg.json`);
  const { buildInfo } = JSON.parse(await readFile(debugFile, 'utf8')) as { buildInfo: string };
  return JSON.parse(await readFile(resolve(dirname(debugFile), buildInfo), 'utf8')) as BuildInfo;
}

/**
 * The compiler as explorers list it, `v0.8.30+commit.73712a01`. Compiled with the solc-js build
 * (offline), the long version ends in `.Emscripten.clang`, which Etherscan does not know; the
 * release is the same and so is the bytecode.
 */
export function explorerCompilerVersion(solcLongVersion: string): string {
  const release = /^\d+\.\d+\.\d+\+commit\.[0-9a-f]{8}/.exec(solcLongVersion)?.[0];
  if (release === undefined) throw new Error(`Unexpected compiler version ${solcLongVersion}`);
  return `v${release}`;
}

type Verified = Pick<SourceVerificationOutcome, 'status' | 'detail'>;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function verifyOnEtherscan(
  target: EtherscanTarget,
  chainId: number,
  contract: {
    sourceName: string;
    contractName: string;
    address: string;
    constructorArguments: string;
  },
  buildInfo: BuildInfo,
): Promise<Verified> {
  // hardhat-verify sends a chain id only to Etherscan's multichain API (it then ignores apiUrl);
  // any other Etherscan-compatible API is one per chain, at its own URL.
  const etherscan =
    target.apiUrl === undefined
      ? new Etherscan(
          target.apiKey,
          ETHERSCAN_V2_API_URL,
          target.browserUrl ?? 'https://etherscan.io',
          chainId,
        )
      : new Etherscan(target.apiKey, target.apiUrl, target.browserUrl ?? target.apiUrl, undefined);
  const page = etherscan.getContractUrl(contract.address);
  if (await etherscan.isVerified(contract.address))
    return { status: 'alreadyVerified', detail: page };
  const submitted = await etherscan.verify(
    contract.address,
    // The whole standard JSON input the artifact was compiled from: the same settings (viaIR,
    // optimizer runs, evmVersion) and sources give the same bytecode.
    JSON.stringify(buildInfo.input),
    `${contract.sourceName}:${contract.contractName}`,
    explorerCompilerVersion(buildInfo.solcLongVersion),
    contract.constructorArguments,
  );
  // `message` holds the submission's GUID; the status is polled every 3 s while pending.
  const outcome = await etherscan.getVerificationStatus(submitted.message);
  if (outcome.isSuccess()) return { status: 'verified', detail: page };
  if (outcome.isAlreadyVerified()) return { status: 'alreadyVerified', detail: page };
  return { status: 'failed', detail: outcome.message };
}

async function verifyOnSourcify(
  target: SourcifyTarget,
  chainId: number,
  contract: { sourceName: string; contractName: string; address: string },
  buildInfo: BuildInfo,
): Promise<Verified> {
  const sourcify = new Sourcify(
    chainId,
    target.apiUrl ?? SOURCIFY_API_URL,
    target.browserUrl ?? SOURCIFY_BROWSER_URL,
  );
  const already = await sourcify.isVerified(contract.address);
  if (already !== false) {
    return {
      status: 'alreadyVerified',
      detail: sourcify.getContractUrl(contract.address, already),
    };
  }
  // Sourcify recompiles from the metadata and exactly the sources it names.
  const metadata =
    buildInfo.output.contracts[contract.sourceName]?.[contract.contractName]?.metadata;
  if (metadata === undefined)
    throw new Error(`No metadata for ${contract.contractName} in the build info`);
  const files: Record<string, string> = { 'metadata.json': metadata };
  for (const source of Object.keys((JSON.parse(metadata) as { sources: object }).sources)) {
    const content = buildInfo.input.sources[source]?.content;
    if (content === undefined) throw new Error(`Source ${source} is missing from the build info`);
    files[source] = content;
  }
  const response = await sourcify.verify(contract.address, files);
  if (!response.isOk()) return { status: 'failed', detail: response.error ?? 'not verified' };
  return { status: 'verified', detail: sourcify.getContractUrl(contract.address, response.status) };
}

/**
 * Submits the sources of both registries of a deployment (and of its status registry) for verification, through hardhat-verify,
 * to an Etherscan-compatible explorer and/or Sourcify, so that their pages show the code and the
 * read functions (`getTrustPoint`, `getEvidence`: verification method 2). Sources, compiler version
 * and settings come from the build info of the artifacts the deployment used; the constructor
 * arguments from the deployment record. Contracts already verified are left alone. A verifier that
 * cannot be reached or refuses is reported per contract, not thrown, so one does not stop the other.
 */
export async function verifyDeploymentSources(
  deployment: TrustpointDeployment,
  options: SourceVerificationOptions,
): Promise<SourceVerificationOutcome[]> {
  const artifactsDir = options.artifactsDir ?? defaultArtifactsDir();
  const chainId = Number(deployment.chainId);
  // Every contract takes (admin, registrar): one encoding serves them all.
  const names = REGISTRY_CONTRACTS[deployment.registries ?? 'slots'];
  const contracts: {
    contractName: SourceVerificationOutcome['contract'];
    address: string;
    constructorArguments: string;
  }[] = [
    {
      contractName: names.trustPoints,
      address: deployment.trustPointRegistry,
      constructorArguments: TrustPointRegistry__factory.createInterface().encodeDeploy([
        deployment.admin,
        deployment.registrar,
      ]),
    },
    {
      contractName: names.evidences,
      address: deployment.evidenceRepository,
      constructorArguments: EvidenceRepository__factory.createInterface().encodeDeploy([
        deployment.admin,
        deployment.registrar,
      ]),
    },
  ];
  if (deployment.statusRegistry) {
    contracts.push({
      contractName: 'TrustPointStatusRegistry',
      address: deployment.statusRegistry,
      constructorArguments: TrustPointStatusRegistry__factory.createInterface().encodeDeploy([
        deployment.admin,
        deployment.registrar,
      ]),
    });
  }
  const outcomes: SourceVerificationOutcome[] = [];
  for (const { contractName, address, constructorArguments } of contracts) {
    const sourceName = `contracts/${contractName}.sol`;
    const buildInfo = await buildInfoOf(artifactsDir, sourceName, contractName);
    const contract = {
      sourceName,
      contractName,
      address,
      // Etherscan takes the ABI-encoded arguments as hex without 0x.
      constructorArguments: constructorArguments.slice(2),
    };
    const { etherscan, sourcify } = options;
    const targets: [SourceVerificationOutcome['verifier'], () => Promise<Verified>][] = [];
    if (etherscan) {
      targets.push(['etherscan', () => verifyOnEtherscan(etherscan, chainId, contract, buildInfo)]);
    }
    if (sourcify) {
      targets.push(['sourcify', () => verifyOnSourcify(sourcify, chainId, contract, buildInfo)]);
    }
    for (const [verifier, run] of targets) {
      const outcome = await run().catch((error: unknown) => ({
        status: 'failed' as const,
        detail: errorText(error),
      }));
      outcomes.push({ contract: contractName, address, verifier, ...outcome });
    }
  }
  return outcomes;
}
