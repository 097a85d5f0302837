import { expect } from 'chai';
import { ethers } from 'hardhat';
import { verifyDeploymentSources, type TrustpointDeployment } from '../src';
import { startExplorerStandIn, type ExplorerStandIn } from './explorer-stand-in';
import { deployRegistries } from './fixtures';

describe('verifyDeploymentSources', function () {
  let standIn: ExplorerStandIn;
  let deployment: TrustpointDeployment;

  before(async () => {
    standIn = await startExplorerStandIn();
    const { admin, registrar, registry, repository } = await deployRegistries();
    deployment = {
      chainId: (await ethers.provider.getNetwork()).chainId.toString(),
      trustPointRegistry: await registry.getAddress(),
      evidenceRepository: await repository.getAddress(),
      admin: admin.address,
      registrar: registrar.address,
      blockNumber: await ethers.provider.getBlockNumber(),
      deployedAt: new Date().toISOString(),
    };
  });

  after(async () => {
    await standIn.close();
  });

  it('should submit the exact compiler input, version and constructor arguments to an Etherscan-compatible API and to Sourcify', async () => {
    const outcomes = await verifyDeploymentSources(deployment, {
      etherscan: { apiKey: 'TEST-KEY', apiUrl: `${standIn.url}/api`, browserUrl: standIn.url },
      sourcify: { apiUrl: `${standIn.url}/sourcify`, browserUrl: standIn.url },
    });

    expect(
      outcomes.map(({ contract, verifier, status }) => [contract, verifier, status]),
    ).to.deep.equal([
      ['TrustPointRegistry', 'etherscan', 'verified'],
      ['TrustPointRegistry', 'sourcify', 'verified'],
      ['EvidenceRepository', 'etherscan', 'verified'],
      ['EvidenceRepository', 'sourcify', 'verified'],
    ]);
    const submissions = standIn.requests.filter(
      (r) => r.url.pathname === '/api' && r.method === 'POST',
    );
    expect(submissions).to.have.length(2);
    for (const [index, name] of ['TrustPointRegistry', 'EvidenceRepository'].entries()) {
      const submission = submissions[index];
      if (!submission) throw new Error('a submission per contract');
      const form = new URLSearchParams(submission.body);
      const address = index === 0 ? deployment.trustPointRegistry : deployment.evidenceRepository;
      expect(submission.contentType).to.equal('application/x-www-form-urlencoded');
      expect(form.get('apikey')).to.equal('TEST-KEY');
      expect(form.get('module')).to.equal('contract');
      expect(form.get('action')).to.equal('verifysourcecode');
      expect(form.get('contractaddress')).to.equal(address);
      expect(form.get('codeformat')).to.equal('solidity-standard-json-input');
      expect(form.get('contractname')).to.equal(`contracts/${name}.sol:${name}`);
      expect(form.get('compilerversion')).to.equal('v0.8.30+commit.73712a01');
      expect(form.get('constructorArguements')).to.equal(
        ethers.AbiCoder.defaultAbiCoder()
          .encode(['address', 'address'], [deployment.admin, deployment.registrar])
          .slice(2),
      );
      const input = JSON.parse(form.get('sourceCode') ?? '{}') as {
        language: string;
        sources: Record<string, { content: string }>;
        settings: { viaIR: boolean; evmVersion: string; optimizer: { runs: number } };
      };
      expect(input.language).to.equal('Solidity');
      expect(input.settings).to.include({ viaIR: true, evmVersion: 'cancun' });
      expect(input.settings.optimizer.runs).to.equal(10_000);
      expect(Object.keys(input.sources)).to.include(`contracts/${name}.sol`);
    }
  });

  it('should give Sourcify the metadata and every source it names, each matching its keccak256', async () => {
    standIn.requests.length = 0;

    await verifyDeploymentSources(deployment, { sourcify: { apiUrl: `${standIn.url}/sourcify` } });

    const posts = standIn.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.url.pathname)).to.deep.equal(['/sourcify', '/sourcify']);
    for (const post of posts) {
      const body = JSON.parse(post.body) as { chain: string; files: Record<string, string> };
      const metadata = JSON.parse(body.files['metadata.json'] ?? '{}') as {
        sources: Record<string, { keccak256: string }>;
      };
      expect(body.chain).to.equal(deployment.chainId);
      expect(Object.keys(body.files).sort()).to.deep.equal(
        ['metadata.json', ...Object.keys(metadata.sources)].sort(),
      );
      for (const [source, { keccak256 }] of Object.entries(metadata.sources)) {
        expect(ethers.keccak256(ethers.toUtf8Bytes(body.files[source] ?? ''))).to.equal(keccak256);
      }
    }
  });

  it('should report an unreachable explorer per contract instead of throwing', async () => {
    const outcomes = await verifyDeploymentSources(deployment, {
      etherscan: { apiKey: 'TEST-KEY', apiUrl: 'http://127.0.0.1:9/api' },
    });

    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['failed', 'failed']);
  });
});
