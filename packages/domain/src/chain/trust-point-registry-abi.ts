import { Interface } from 'ethers';

/**
 * The TrustPointRegistry contract as far as verifiers and the anchoring engine need it, in
 * human-readable ABI form. `TrustPointType` is a Solidity enum, which the ABI encodes as uint8.
 */
export const TRUST_POINT_REGISTRY_ABI = [
  'function getTrustPoint(string certId, uint256 timestamp) view returns (string hash, uint8 trustPointType)',
  'function registerTrustPoint(bytes32 key, bytes32 hash, uint8 trustPointType)',
  'function registerTrustPoints((bytes32 key, bytes32 hash, uint8 trustPointType)[] records)',
  'error TrustPointNotFound_6Gr6z8()',
] as const;

export const trustPointRegistryInterface = new Interface(TRUST_POINT_REGISTRY_ABI);

/** Revert data of `getTrustPoint` for an unknown key (4 bytes, no arguments), as the spec publishes. */
export { TRUST_POINT_NOT_FOUND_SELECTOR } from '@trustpoint/verifier';
