import { AbiCoder } from 'ethers';
import { describe, expect, it } from 'vitest';

import {
  decodeGetEvidenceResponse,
  encodeGetEvidenceCall,
  getEvidenceRequest,
  isEvidenceNotFoundRevert,
} from './evidence-lookup.js';
import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

const ASSET_HASH = 'ab'.repeat(32);
const HASH = 'cd'.repeat(32);
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const coder = AbiCoder.defaultAbiCoder();

describe('encodeGetEvidenceCall', () => {
  it('when encoding, then it is the getEvidence selector followed by (string, uint256)', () => {
    const data = encodeGetEvidenceCall(ASSET_HASH, 1767225600);

    expect(data.slice(0, 10)).toBe('0xf74328fe');
    expect(coder.decode(['string', 'uint256'], `0x${data.slice(10)}`).toArray()).toEqual([
      ASSET_HASH,
      1767225600n,
    ]);
  });

  it('when the asset hash carries 0x, then it is rejected rather than looked up as another key', () => {
    expect(() => encodeGetEvidenceCall(`0x${ASSET_HASH}`, 1)).toThrow(TypeError);
  });

  it('when building the request, then it targets the contract with the encoded call', () => {
    const request = getEvidenceRequest({
      smartContract: CONTRACT,
      assetHash: ASSET_HASH,
      timestampSeconds: 1,
      id: 3,
    });

    expect(request).toMatchObject({
      id: 3,
      params: [{ to: CONTRACT, data: encodeGetEvidenceCall(ASSET_HASH, 1) }, 'latest'],
    });
  });
});

describe('decodeGetEvidenceResponse', () => {
  it('when the node returns a hash, then it is found', () => {
    // Arrange
    const response = { jsonrpc: '2.0', id: 1, result: coder.encode(['string'], [HASH]) };

    // Act
    const lookup = decodeGetEvidenceResponse(response);

    // Assert
    expect(lookup).toEqual({ found: true, hash: HASH });
  });

  it('when the node reverts with 0x09cea733, then it is not found', () => {
    const response = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: 3, message: 'execution reverted', data: '0x09cea733' },
    };

    expect(decodeGetEvidenceResponse(response)).toEqual({ found: false });
  });

  it.each([
    [
      'the trustpoint not-found selector',
      { error: { code: -32000, message: 'reverted', data: '0x16fd89cc' } },
    ],
    ['a result that is not an ABI string', { result: `0x${'00'.repeat(31)}` }],
    ['a hash of the wrong length', { result: coder.encode(['string'], ['abc']) }],
  ])('when the response holds %s, then it throws UnexpectedEthCallResponseError', (_, response) => {
    expect(() => decodeGetEvidenceResponse(response)).toThrow(UnexpectedEthCallResponseError);
  });
});

describe('isEvidenceNotFoundRevert', () => {
  it('when the revert data is the selector, then it is recognized', () => {
    expect(isEvidenceNotFoundRevert('0x09CEA733')).toBe(true);
    expect(isEvidenceNotFoundRevert('0x16fd89cc')).toBe(false);
  });
});
