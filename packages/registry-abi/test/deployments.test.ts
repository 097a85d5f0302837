import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evidenceBatchRepositoryAbi,
  evidenceRepositoryAbi,
  readDeployments,
  trustPointBatchRegistryAbi,
  trustPointRegistryAbi,
  trustPointStatusRegistryAbi,
} from '../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'registry-abi-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('readDeployments', () => {
  it('when the file does not exist, then there are no deployments', async () => {
    await expect(readDeployments(join(dir, 'missing.json'))).resolves.toEqual({});
  });

  it('when the file exists, then returns its entries by chain id', async () => {
    const path = join(dir, 'deployments.json');
    const entry = {
      chainId: '31337',
      trustPointRegistry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      evidenceRepository: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      statusRegistry: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      admin: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      registrar: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      blockNumber: 3,
      deployedAt: '2026-11-26T00:00:00.000Z',
      registries: 'batches',
    };
    await writeFile(path, JSON.stringify({ '31337': entry }));
    await expect(readDeployments(path)).resolves.toEqual({ '31337': entry });
  });

  it('when the file is not JSON, then says so rather than returning nothing', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{"31337": ');
    await expect(readDeployments(path)).rejects.toThrow(SyntaxError);
  });
});

describe('the typed factories', () => {
  // The build generates them from abi/*.json; a build older than those files would call the
  // registries with an ABI that no longer matches them.
  it.each([
    ['TrustPointRegistry', trustPointRegistryAbi],
    ['EvidenceRepository', evidenceRepositoryAbi],
    ['TrustPointBatchRegistry', trustPointBatchRegistryAbi],
    ['EvidenceBatchRepository', evidenceBatchRepositoryAbi],
    ['TrustPointStatusRegistry', trustPointStatusRegistryAbi],
  ])('when built, then carry the ABI of abi/%s.json', async (name, abi) => {
    const file = JSON.parse(
      await readFile(join(__dirname, '..', 'abi', `${name}.json`), 'utf8'),
    ) as { abi: unknown };
    expect(abi).toEqual(file.abi);
  });
});
