// Verification as an outside client sees it: a real `hardhat node` over JSON-RPC, raw requests.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { AbiCoder, JsonRpcProvider, Wallet } from 'ethers';
import { startHardhatNode, type HardhatNode } from '../src/hardhat-node';
import { HARDHAT_DEV_KEY as DEV_KEY, type DeploymentsFile } from '@trustpoint/registry-abi';
import {
  EvidenceBatchRepository__factory,
  TrustPointBatchRegistry__factory,
} from '../typechain-types';
import { startExplorerStandIn } from './explorer-stand-in';
import { digest, Evidence, recordKey, Revocation } from './fixtures';

const DEPLOY_CLI = join(__dirname, '..', 'scripts', 'deploy.ts');
const run = promisify(execFile);

interface JsonRpcResponse {
  result?: string;
  error?: { code: number; message: string; data?: string | { data?: string } };
}

/** Revert data as nodes report it: geth and Besu in `error.data`, Hardhat in `error.data.data`. */
function revertData(response: JsonRpcResponse): string | undefined {
  const data = response.error?.data;
  return typeof data === 'string' ? data : data?.data;
}

async function ethCall(
  url: string,
  to: string,
  data: string,
  from?: string,
): Promise<JsonRpcResponse> {
  const call = from ? { from, to, data } : { to, data };
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_call', params: [call, 'latest'], id: 1 }),
  });
  return (await response.json()) as JsonRpcResponse;
}

async function deployWithCli(
  url: string,
  out: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
) {
  const { stdout } = await run(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', DEPLOY_CLI, '--rpc-url', url, '--out', out, ...extra],
    { cwd: join(__dirname, '..'), env },
  );
  return stdout;
}

describe('JSON-RPC verification against hardhat node', function () {
  this.timeout(120_000);
  let node: HardhatNode;
  let deployments: string;
  let registryAddress: string;
  let repositoryAddress: string;
  let statusAddress: string;

  before(async () => {
    node = await startHardhatNode();
    deployments = join(await mkdtemp(join(tmpdir(), 'trustpoint-deploy-')), 'deployments.json');
    await deployWithCli(node.url, deployments);
    const recorded = JSON.parse(await readFile(deployments, 'utf8')) as DeploymentsFile;
    const local = recorded['31337'];
    if (!local) throw new Error('deployment for chain 31337 not recorded');
    registryAddress = local.trustPointRegistry;
    repositoryAddress = local.evidenceRepository;
    if (!local.statusRegistry) throw new Error('status registry not recorded');
    statusAddress = local.statusRegistry;
  });

  after(async () => {
    await node.stop();
  });

  describe('deployment', () => {
    it('should answer net_version with the local chain id', async () => {
      const response = await fetch(node.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'net_version', params: [], id: 1 }),
      });
      expect(((await response.json()) as JsonRpcResponse).result).to.equal('31337');
    });

    it('should reuse the recorded registries on a second run', async () => {
      const stdout = await deployWithCli(node.url, deployments);

      expect(stdout).to.contain('already deployed');
      const recorded = JSON.parse(await readFile(deployments, 'utf8')) as DeploymentsFile;
      expect(recorded['31337']?.trustPointRegistry).to.equal(registryAddress);
    });

    it('should deploy batch registries unless told --registries slots, and record which', async () => {
      const other = join(await mkdtemp(join(tmpdir(), 'trustpoint-deploy-')), 'deployments.json');

      await deployWithCli(node.url, other, ['--registries', 'slots']);

      const recorded = JSON.parse(await readFile(other, 'utf8')) as DeploymentsFile;
      expect(recorded['31337']?.registries).to.equal('slots');
      const first = JSON.parse(await readFile(deployments, 'utf8')) as DeploymentsFile;
      expect(first['31337']?.registries).to.equal('batches');
      // A slot registry has no buckets: the call reverts.
      const probe = TrustPointBatchRegistry__factory.createInterface().encodeFunctionData(
        'bucketOf',
        [0],
      );
      expect(
        (await ethCall(node.url, recorded['31337']?.trustPointRegistry ?? '', probe)).error,
      ).to.not.equal(undefined);
      expect((await ethCall(node.url, registryAddress, probe)).result).to.have.length(130);
    });

    it('should deploy again with --force, to new addresses', async () => {
      const other = join(await mkdtemp(join(tmpdir(), 'trustpoint-deploy-')), 'deployments.json');
      await deployWithCli(node.url, other);

      await deployWithCli(node.url, other, ['--force']);

      const recorded = JSON.parse(await readFile(other, 'utf8')) as DeploymentsFile;
      expect(recorded['31337']?.trustPointRegistry).to.not.equal(registryAddress);
    });

    // The explorers cannot be reached from here: a local stand-in answers as their APIs do.
    it('should submit the recorded registries for verification with --verify, to the explorer and Sourcify named', async () => {
      const standIn = await startExplorerStandIn();
      try {
        const stdout = await deployWithCli(
          node.url,
          deployments,
          [
            '--verify',
            '--etherscan-api-url',
            `${standIn.url}/api`,
            '--sourcify-url',
            `${standIn.url}/sourcify`,
          ],
          { ...process.env, ETHERSCAN_API_KEY: 'TEST-KEY' },
        );

        expect(stdout).to.contain(
          `TrustPointBatchRegistry ${registryAddress} on etherscan: verified`,
        );
        expect(stdout).to.contain(
          `EvidenceBatchRepository ${repositoryAddress} on sourcify: verified`,
        );
        expect(stdout).to.contain(
          `TrustPointStatusRegistry ${statusAddress} on etherscan: verified`,
        );
        const submitted = standIn.requests
          .filter((request) => request.method === 'POST')
          .map((request) =>
            request.url.pathname === '/api'
              ? new URLSearchParams(request.body).get('contractaddress')
              : (JSON.parse(request.body) as { address: string }).address,
          );
        expect(submitted).to.deep.equal([
          registryAddress,
          registryAddress,
          repositoryAddress,
          repositoryAddress,
          statusAddress,
          statusAddress,
        ]);
      } finally {
        await standIn.close();
      }
    });
  });

  describe('getTrustPoint by eth_call', () => {
    const certId = 'did:trustpoint:certid:019b7a2c-8e00-7000-8000-0000000000aa';
    const timestamp = 1_767_225_600_999;

    it('should return the ABI-encoded (hash, type) of a recorded trustpoint', async () => {
      const wallet = new Wallet(DEV_KEY, new JsonRpcProvider(node.url));
      const registry = TrustPointBatchRegistry__factory.connect(registryAddress, wallet);
      const { word, hex } = digest('revoked');
      await (
        await registry.registerTrustPoint(recordKey(certId, timestamp), word, Revocation, timestamp)
      ).wait();

      const data = registry.interface.encodeFunctionData('getTrustPoint', [certId, timestamp]);
      const response = await ethCall(node.url, registryAddress, data);

      expect(response.error).to.equal(undefined);
      const [hash, type] = AbiCoder.defaultAbiCoder().decode(
        ['string', 'uint8'],
        response.result ?? '0x',
      );
      expect(hash).to.equal(hex);
      expect(type).to.equal(BigInt(Revocation));
    });

    it('should revert with exactly the 4 selector bytes 0x16fd89cc for an unknown key', async () => {
      const data = TrustPointBatchRegistry__factory.createInterface().encodeFunctionData(
        'getTrustPoint',
        [certId, timestamp + 1],
      );

      const response = await ethCall(node.url, registryAddress, data);

      expect(response.result).to.equal(undefined);
      expect(revertData(response)).to.equal('0x16fd89cc');
    });
  });

  describe('getEvidence by eth_call', () => {
    const assetHash = digest('asset').hex;
    const timestamp = 1_767_225_600;

    it('should return the ABI-encoded hash of a recorded evidence', async () => {
      const wallet = new Wallet(DEV_KEY, new JsonRpcProvider(node.url));
      const repository = EvidenceBatchRepository__factory.connect(repositoryAddress, wallet);
      const { word, hex } = digest('evidence');
      await (
        await repository.registerEvidence(recordKey(assetHash, timestamp), word, timestamp)
      ).wait();

      const data = repository.interface.encodeFunctionData('getEvidence', [assetHash, timestamp]);
      const response = await ethCall(node.url, repositoryAddress, data);

      const [hash] = AbiCoder.defaultAbiCoder().decode(['string'], response.result ?? '0x');
      expect(hash).to.equal(hex);
    });

    it('should revert with exactly the 4 selector bytes 0x09cea733 for an unknown key', async () => {
      const data = EvidenceBatchRepository__factory.createInterface().encodeFunctionData(
        'getEvidence',
        [assetHash, timestamp + 1],
      );

      const response = await ethCall(node.url, repositoryAddress, data);

      expect(response.result).to.equal(undefined);
      expect(revertData(response)).to.equal('0x09cea733');
    });
  });

  it('should not let an account without the registrar role write through the node', async () => {
    const stranger = Wallet.createRandom().connect(new JsonRpcProvider(node.url));
    const registry = TrustPointBatchRegistry__factory.connect(registryAddress, stranger);

    const data = registry.interface.encodeFunctionData('registerTrustPoint', [
      recordKey('x', 1),
      digest('x').word,
      Evidence,
      1,
    ]);
    const response = await ethCall(node.url, registryAddress, data, stranger.address);

    expect(revertData(response)?.slice(0, 10)).to.equal(
      registry.interface.getError('AccessControlUnauthorizedAccount')?.selector,
    );
  });
});
