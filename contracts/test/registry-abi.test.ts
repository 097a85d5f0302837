import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { artifacts } from 'hardhat';

// @trustpoint/registry-abi holds the ABIs the service calls the registries with, so that nothing
// it runs needs Hardhat: one file per contract in its abi/ folder, copied from the artifacts
// compiled here. These tests fail when they drift from the Solidity.
const ABI_DIR = join(dirname(require.resolve('@trustpoint/registry-abi/package.json')), 'abi');
const UPDATE_COMMAND = '`npm run abi:update` in contracts/';

interface AbiFile {
  contractName: string;
  sourceName: string;
  generatedBy: string;
  abi: unknown[];
}

/** What the package's file of a contract holds, from its compiled artifact. */
async function compiled(contractName: string): Promise<AbiFile> {
  const artifact = await artifacts.readArtifact(contractName);
  return {
    contractName: artifact.contractName,
    sourceName: artifact.sourceName,
    generatedBy: `Copied from the compiled artifact by ${UPDATE_COMMAND}; never edit by hand`,
    abi: artifact.abi,
  };
}

/** The contracts the package holds: one `<contractName>.json` each. */
const contractNames = () =>
  readdirSync(ABI_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();

describe('@trustpoint/registry-abi', () => {
  before(async () => {
    // `npm run abi:update` rewrites every file from its artifact (a new contract: add
    // abi/<contractName>.json holding {} first).
    if (process.env.UPDATE_REGISTRY_ABI !== '1') return;
    for (const name of contractNames()) {
      writeFileSync(
        join(ABI_DIR, `${name}.json`),
        `${JSON.stringify(await compiled(name), null, 2)}\n`,
      );
    }
  });

  it('should hold the ABIs of the registries the service writes to and reads', () => {
    expect(contractNames()).to.include.members([
      'EvidenceBatchRepository',
      'EvidenceRepository',
      'TrustPointBatchRegistry',
      'TrustPointRegistry',
      'TrustPointStatusRegistry',
    ]);
  });

  it(`should hold each ABI exactly as compiled (after a change: ${UPDATE_COMMAND}, then the build)`, async () => {
    for (const name of contractNames()) {
      const held = JSON.parse(readFileSync(join(ABI_DIR, `${name}.json`), 'utf8')) as AbiFile;
      expect(
        held,
        `packages/registry-abi/abi/${name}.json differs from the compiled ${name}: run ${UPDATE_COMMAND}`,
      ).to.deep.equal(await compiled(name));
    }
  });
});
