import { Interface } from 'ethers';

/** The EvidenceRepository contract as far as verifiers and the anchoring engine need it. */
export const EVIDENCE_REPOSITORY_ABI = [
  'function getEvidence(string assetHash, uint256 timestamp) view returns (string hash)',
  'function registerEvidence(bytes32 key, bytes32 hash)',
  'function registerEvidences((bytes32 key, bytes32 hash)[] records)',
  'error EvidenceNotFound_7QF74()',
] as const;

export const evidenceRepositoryInterface = new Interface(EVIDENCE_REPOSITORY_ABI);

/** Revert data of `getEvidence` for an unknown key, as published by the spec. */
export { EVIDENCE_NOT_FOUND_SELECTOR } from '@trustpoint/verifier';
