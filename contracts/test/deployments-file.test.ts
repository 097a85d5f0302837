import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { deployTrustpoint } from '../src/deploy';
import { readDeployments } from '@trustpoint/registry-abi';
import { ensureDeployment, recordDeployment } from '../src/deployments-file';
import { TrustPointStatusRegistry__factory } from '../typechain-types';

describe('Deployments file', () => {
  describe('ensureDeployment', () => {
    it('should deploy the status registry beside the registries and record it', async () => {
      const [deployer] = await ethers.getSigners();
      if (!deployer) throw new Error('no signer');
      const path = join(await mkdtemp(join(tmpdir(), 'trustpoint-deployments-')), 'd.json');

      const { deployment, reused } = await ensureDeployment(deployer, path);

      expect(reused).to.equal(false);
      const { statusRegistry } = deployment;
      if (!statusRegistry) throw new Error('no status registry');
      const status = TrustPointStatusRegistry__factory.connect(statusRegistry, deployer);
      expect(await status.hasRole(await status.REGISTRAR_ROLE(), deployer.address)).to.equal(true);
      expect((await readDeployments(path))[deployment.chainId]).to.deep.equal(deployment);
    });

    it('should add a status registry to a deployment recorded before it existed, once', async () => {
      const [deployer, registrar] = await ethers.getSigners();
      if (!deployer || !registrar) throw new Error('no signers');
      const path = join(await mkdtemp(join(tmpdir(), 'trustpoint-deployments-')), 'd.json');
      const { statusRegistry: _, ...earlier } = await deployTrustpoint(deployer, {
        registrar: registrar.address,
      });
      await recordDeployment(path, earlier);

      const first = await ensureDeployment(deployer, path);
      const second = await ensureDeployment(deployer, path);

      expect(first.reused).to.equal(true);
      expect(first.deployment).to.deep.include({
        trustPointRegistry: earlier.trustPointRegistry,
        evidenceRepository: earlier.evidenceRepository,
      });
      const { statusRegistry } = first.deployment;
      if (!statusRegistry) throw new Error('no status registry');
      expect(await ethers.provider.getCode(statusRegistry)).not.to.equal('0x');
      const status = TrustPointStatusRegistry__factory.connect(statusRegistry, deployer);
      expect(await status.hasRole(await status.REGISTRAR_ROLE(), registrar.address)).to.equal(true);
      expect(second.deployment.statusRegistry).to.equal(statusRegistry);
      expect(JSON.parse(await readFile(path, 'utf8'))).to.deep.equal({
        [first.deployment.chainId]: first.deployment,
      });
    });
  });
});
