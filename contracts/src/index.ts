// Public surface of @trustpoint/contracts: ABIs, TypeChain bindings, deployment and gas figures.
import {
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TrustPointStatusRegistry__factory,
} from '../typechain-types';

export type {
  EvidenceBatchRepository,
  IEvidenceBatchRepository,
  ITrustPointBatchRegistry,
  TrustPointBatchRegistry,
  EvidenceRepository,
  IEvidenceRepository,
  ITrustPointRegistry,
  TrustPointRegistry,
  IRecordBatches,
  IRegistryGeneration,
  ITrustPointStatusRegistry,
  TrustPointStatusRegistry,
} from '../typechain-types';
export {
  EvidenceBatchRepository__factory,
  IEvidenceBatchRepository__factory,
  ITrustPointBatchRegistry__factory,
  TrustPointBatchRegistry__factory,
  EvidenceRepository__factory,
  IEvidenceRepository__factory,
  ITrustPointRegistry__factory,
  TrustPointRegistry__factory,
  IRecordBatches__factory,
  IRegistryGeneration__factory,
  ITrustPointStatusRegistry__factory,
  TrustPointStatusRegistry__factory,
} from '../typechain-types';

/** ABI of the certificate trustpoint registry. */
export const trustPointRegistryAbi = TrustPointRegistry__factory.abi;
/** ABI of the asset evidence repository. */
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

export * from './deploy';
export * from './deployments-file';
export * from './batch-gas-scenarios';
export * from './gas-scenarios';
export * from './hardhat-node';
export * from './local-chain';
export * from './local-chain-process';
export * from './record-batches';
export * from './status-gas-scenarios';
export * from './verify-sources';
