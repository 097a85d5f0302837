import { id } from 'ethers';
import { describe, expect, it } from 'vitest';

import {
  EVIDENCE_NOT_FOUND_SELECTOR,
  evidenceRepositoryInterface,
} from './evidence-repository-abi.js';
import {
  TRUST_POINT_NOT_FOUND_SELECTOR,
  trustPointRegistryInterface,
} from './trust-point-registry-abi.js';

describe('contract ABIs', () => {
  it('when hashing the not-found error signatures, then they give the published selectors', () => {
    expect(id('TrustPointNotFound_6Gr6z8()').slice(0, 10)).toBe('0x16fd89cc');
    expect(id('EvidenceNotFound_7QF74()').slice(0, 10)).toBe('0x09cea733');
    expect(trustPointRegistryInterface.getError('TrustPointNotFound_6Gr6z8')?.selector).toBe(
      TRUST_POINT_NOT_FOUND_SELECTOR,
    );
    expect(evidenceRepositoryInterface.getError('EvidenceNotFound_7QF74')?.selector).toBe(
      EVIDENCE_NOT_FOUND_SELECTOR,
    );
  });

  it('when reading the read functions, then they are views with the specified signatures', () => {
    expect(trustPointRegistryInterface.getFunction('getTrustPoint')?.format('full')).toBe(
      'function getTrustPoint(string certId, uint256 timestamp) view returns (string hash, uint8 trustPointType)',
    );
    expect(evidenceRepositoryInterface.getFunction('getEvidence')?.format('full')).toBe(
      'function getEvidence(string assetHash, uint256 timestamp) view returns (string hash)',
    );
  });
});
