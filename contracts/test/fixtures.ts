import { ethers } from 'hardhat';
import {
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
} from '../typechain-types';

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

export async function deployStatusRegistry() {
  const [admin, registrar, stranger] = await ethers.getSigners();
  if (!admin || !registrar || !stranger) throw new Error('Hardhat provides at least three signers');
  const roles = [admin.address, registrar.address];
  const status = await ethers.deployContract('TrustPointStatusRegistry', roles, admin);
  return { admin, registrar, stranger, status: status.connect(registrar) };
}

/**
 * All four registries from the bytecode TypeChain embeds: the optimized build that is deployed,
 * also under `npm run coverage` (whose artifacts hold the instrumented build, many times slower).
 * Property tests send hundreds of transactions each, and check the code users get.
 */
export async function deployReleaseRegistries() {
  const [admin, registrar] = await ethers.getSigners();
  if (!admin || !registrar) throw new Error('Hardhat provides at least two signers');
  const roles = [admin.address, registrar.address] as const;
  const slotRegistry = await new TrustPointRegistry__factory(admin).deploy(...roles);
  const slotRepository = await new EvidenceRepository__factory(admin).deploy(...roles);
  const batchRegistry = await new TrustPointBatchRegistry__factory(admin).deploy(...roles);
  const batchRepository = await new EvidenceBatchRepository__factory(admin).deploy(...roles);
  return {
    admin,
    registrar,
    slotRegistry: slotRegistry.connect(registrar),
    slotRepository: slotRepository.connect(registrar),
    batchRegistry: batchRegistry.connect(registrar),
    batchRepository: batchRepository.connect(registrar),
  };
}

/**
 * `count` elements spread evenly from the first to the last. Unit tests look these records up
 * rather than every one: under `npm run coverage` a lookup in the instrumented contracts costs
 * a hundred times its plain run, and the property tests look every record up on the optimized
 * build.
 */
export function spread<T>(xs: readonly T[], count: number): T[] {
  if (xs.length <= count) return [...xs];
  const picked = new Set(
    Array.from({ length: count }, (_, i) => Math.round((i * (xs.length - 1)) / (count - 1))),
  );
  return xs.filter((_, i) => picked.has(i));
}
