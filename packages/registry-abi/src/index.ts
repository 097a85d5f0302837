// Public surface of @trustpoint/registry-abi: what the service needs to talk to the registries,
// with ethers alone at run time. The ABIs in abi/ are copied from contracts' compiled artifacts
// (`npm run abi:update` in contracts/, whose test fails when they drift); the typed factories in
// typechain-types/ are generated from them by the build.
import {
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TrustPointStatusRegistry__factory,
} from '../typechain-types/index.js';

export type {
  EvidenceBatchRepository,
  EvidenceRepository,
  TrustPointBatchRegistry,
  TrustPointRegistry,
  TrustPointStatusRegistry,
} from '../typechain-types/index.js';
export {
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TrustPointStatusRegistry__factory,
};

/** ABI of the certificate trustpoint registry (one storage slot a record). */
export const trustPointRegistryAbi = TrustPointRegistry__factory.abi;
/** ABI of the asset evidence repository (one storage slot a record). */
export const evidenceRepositoryAbi = EvidenceRepository__factory.abi;
/** ABI of the certificate trustpoint registry that keeps large batches as contract code. */
export const trustPointBatchRegistryAbi = TrustPointBatchRegistry__factory.abi;
/** ABI of the asset evidence repository that keeps large batches as contract code. */
export const evidenceBatchRepositoryAbi = EvidenceBatchRepository__factory.abi;
/** ABI of the certificate status registry: revocations readable from the certID alone. */
export const trustPointStatusRegistryAbi = TrustPointStatusRegistry__factory.abi;

/** Trustpoint kinds with their on-chain codes. */
export const TrustPointType = { Evidence: 0, Revocation: 1, Signature: 2 } as const;
export type TrustPointTypeCode = (typeof TrustPointType)[keyof typeof TrustPointType];

export * from './deployments.js';
export * from './hardhat-chain.js';
export * from './record-batches.js';
export * from './chain-write-key.js';
