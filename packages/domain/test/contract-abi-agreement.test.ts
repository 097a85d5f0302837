import {
  evidenceRepositoryAbi,
  TrustPointType,
  trustPointRegistryAbi,
} from '@trustpoint/registry-abi';
import { type Fragment, Interface } from 'ethers';
import { GET_EVIDENCE_SELECTOR, GET_TRUST_POINT_SELECTOR } from '@trustpoint/verifier';
import { describe, expect, it } from 'vitest';

import {
  EVIDENCE_NOT_FOUND_SELECTOR,
  evidenceRepositoryInterface,
  TRUST_POINT_NOT_FOUND_SELECTOR,
  TRUST_POINT_TYPE_CODES,
  trustPointRegistryInterface,
} from '../src/index.js';

/** Full signature (with return types) of every function and error the domain encodes. */
function signatures(contract: Interface): string[] {
  const used: Fragment[] = contract.fragments.filter(
    (fragment) => fragment.type === 'function' || fragment.type === 'error',
  );
  return used.map((fragment) => fragment.format('full'));
}

// The domain keeps its own human-readable ABI so verifiers need no build artifacts; these tests
// pin it to what the compiled contracts actually expose.
describe('agreement with the compiled contracts', () => {
  it.each([
    ['TrustPointRegistry', trustPointRegistryInterface, trustPointRegistryAbi],
    ['EvidenceRepository', evidenceRepositoryInterface, evidenceRepositoryAbi],
  ] as const)(
    'when comparing the %s fragments, then each exists in the compiled ABI with the same signature',
    (_, domainInterface, compiledAbi) => {
      const compiled = new Interface(compiledAbi);

      expect(signatures(compiled)).toEqual(expect.arrayContaining(signatures(domainInterface)));
    },
  );

  it('when reading the not-found errors from the compiled ABIs, then their selectors are the published ones', () => {
    expect(
      new Interface(trustPointRegistryAbi).getError('TrustPointNotFound_6Gr6z8')?.selector,
    ).toBe(TRUST_POINT_NOT_FOUND_SELECTOR);
    expect(new Interface(evidenceRepositoryAbi).getError('EvidenceNotFound_7QF74')?.selector).toBe(
      EVIDENCE_NOT_FOUND_SELECTOR,
    );
  });

  it("when reading the lookups from the compiled ABIs, then their selectors are the verifier's hand-written ones", () => {
    expect(new Interface(trustPointRegistryAbi).getFunction('getTrustPoint')?.selector).toBe(
      GET_TRUST_POINT_SELECTOR,
    );
    expect(new Interface(evidenceRepositoryAbi).getFunction('getEvidence')?.selector).toBe(
      GET_EVIDENCE_SELECTOR,
    );
  });

  it('when comparing trustpoint type codes, then the contracts package agrees', () => {
    expect(TRUST_POINT_TYPE_CODES).toEqual(TrustPointType);
  });
});
