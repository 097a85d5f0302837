// Public surface of @trustpoint/contracts: the registries' TypeChain bindings with their bytecode
// (to deploy them), the deployer, the development chain, gas figures and source verification.
// What the service needs at run time (ABIs, the batch encoding, the deployments file) lives in
// @trustpoint/registry-abi, without Hardhat; the part of it tests and benches use beside the
// deployer is re-exported here.
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

export {
  BATCH_RECORD_BYTES,
  bucketOf,
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  HARDHAT_CHAIN_ID,
  HARDHAT_DEV_KEY,
  keyPrefix,
  MAX_BATCH_RECORDS,
  readDeployments,
  REGISTRY_CONTRACTS,
  TRUSTPOINT_BUCKET_BITS,
  TrustPointType,
  type BatchRecord,
  type DeploymentsFile,
  type EncodedBatch,
  type RegistryGeneration,
  type TrustpointDeployment,
  type TrustPointTypeCode,
} from '@trustpoint/registry-abi';

export * from './chain-access';
export * from './chain-writer';
export * from './deploy';
export * from './deployments-file';
export * from './dev-chain';
export * from './batch-gas-scenarios';
export * from './gas-scenarios';
export * from './free-port';
export * from './hardhat-node';
export * from './local-chain';
export * from './local-chain-process';
export * from './status-gas-scenarios';
export * from './verify-sources';
