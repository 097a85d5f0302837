import { ethers } from 'hardhat';

export const Evidence = 0;
export const Revocation = 1;
export const Signature = 2;

export const recordKey = (id: string, timestamp: number | bigint) =>
  ethers.solidityPackedKeccak256(['string', 'uint256'], [id, timestamp]);

/** A SHA-256 digest as a 0x-prefixed word, and in the form the getters return it. */
export function digest(label: string) {
  const word = ethers.sha256(ethers.toUtf8Bytes(label));
  return { word, hex: word.slice(2) };
}

export async function deployRegistries() {
  const [admin, registrar, stranger] = await ethers.getSigners();
  if (!admin || !registrar || !stranger) throw new Error('Hardhat provides at least three signers');
  // From Hardhat's artifacts rather than the bytecode TypeChain embeds, so that `npm run coverage`
  // deploys its instrumented build (both hold the same code otherwise).
  const roles = [admin.address, registrar.address];
  const registry = await ethers.deployContract('TrustPointRegistry', roles, admin);
  const repository = await ethers.deployContract('EvidenceRepository', roles, admin);
  return { admin, registrar, stranger, registry, repository };
}

export async function deployBatchRegistries() {
  const [admin, registrar, stranger] = await ethers.getSigners();
  if (!admin || !registrar || !stranger) throw new Error('Hardhat provides at least three signers');
  const roles = [admin.address, registrar.address];
  const registry = await ethers.deployContract('TrustPointBatchRegistry', roles, admin);
  const repository = await ethers.deployContract('EvidenceBatchRepository', roles, admin);
  return {
    admin,
    registrar,
    stranger,
    registry: registry.connect(registrar),
    repository: repository.connect(registrar),
  };
}
