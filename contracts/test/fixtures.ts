import { ethers } from 'hardhat';
import { EvidenceRepository__factory, TrustPointRegistry__factory } from '../typechain-types';

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
  const registry = await new TrustPointRegistry__factory(admin).deploy(
    admin.address,
    registrar.address,
  );
  const repository = await new EvidenceRepository__factory(admin).deploy(
    admin.address,
    registrar.address,
  );
  return { admin, registrar, stranger, registry, repository };
}
