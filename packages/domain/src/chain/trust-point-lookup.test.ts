import { AbiCoder } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  decodeGetTrustPointResponse,
  decodeGetTrustPointResult,
  encodeGetTrustPointCall,
  getTrustPointRequest,
  isTrustPointNotFoundRevert,
} from './trust-point-lookup.js';
import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const HASH = 'cd'.repeat(32);
const coder = AbiCoder.defaultAbiCoder();

const resultOf = (hash: string, code: number) => ({
  jsonrpc: '2.0',
  id: 1,
  result: coder.encode(['string', 'uint8'], [hash, code]),
});
const revertOf = (data: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  error: { code: -32000, message: 'execution reverted', data },
});

describe('encodeGetTrustPointCall', () => {
  it('when encoding, then it is the getTrustPoint selector followed by (string, uint256)', () => {
    // Act
    const data = encodeGetTrustPointCall(CERT_ID, 1767225600123);

    // Assert
    expect(data.slice(0, 10)).toBe('0x4a532653');
    expect(coder.decode(['string', 'uint256'], `0x${data.slice(10)}`).toArray()).toEqual([
      CERT_ID,
      1767225600123n,
    ]);
  });

  it('when building the request, then the call goes to the contract address', () => {
    const request = getTrustPointRequest({
      smartContract: CONTRACT,
      certId: CERT_ID,
      timestampMs: 1,
    });

    expect(request.params[0]).toEqual({ to: CONTRACT, data: encodeGetTrustPointCall(CERT_ID, 1) });
  });
});

describe('decodeGetTrustPointResponse', () => {
  it('when the node returns any hash and type, then it is found with that hash and type', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.integer({ min: 0, max: 2 }),
        (bytes, code) => {
          const hash = Buffer.from(bytes).toString('hex');

          const lookup = decodeGetTrustPointResponse(resultOf(hash, code));

          expect(lookup).toEqual({
            found: true,
            hash,
            type: ['Evidence', 'Revocation', 'Signature'][code],
          });
        },
      ),
    );
  });

  it.each([
    ['in error.data', '0x16fd89cc'],
    ['in error.data.data', { message: 'reverted', data: '0x16fd89cc' }],
    ['in uppercase hex', '0x16FD89CC'],
  ])('when the not-found revert comes %s, then it is not found', (_, data) => {
    expect(decodeGetTrustPointResponse(revertOf(data))).toEqual({ found: false });
  });

  it.each([
    ['the evidence not-found selector', revertOf('0x09cea733')],
    ['the selector with trailing bytes', revertOf(`0x16fd89cc${'00'.repeat(32)}`)],
    [
      'an error without revert data',
      { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no such method' } },
    ],
    ['an empty result', { jsonrpc: '2.0', id: 1, result: '0x' }],
    ['a null result', { jsonrpc: '2.0', id: 1, result: null }],
    ['a non-object', 'oops'],
    ['a hash that is not lowercase hex', resultOf(HASH.toUpperCase(), 0)],
    ['a type code outside the enum', resultOf(HASH, 3)],
  ])('when the response is %s, then it throws UnexpectedEthCallResponseError', (_, response) => {
    expect(() => decodeGetTrustPointResponse(response)).toThrow(UnexpectedEthCallResponseError);
  });

  it('when the reply is unexpected, then the error keeps what was received', () => {
    const response = revertOf('0xdeadbeef');

    expect(() => decodeGetTrustPointResponse(response)).toThrow(
      expect.objectContaining({ received: response }) as Error,
    );
  });
});

describe('decodeGetTrustPointResult', () => {
  it('when given raw result data, then it decodes without a JSON-RPC envelope', () => {
    expect(decodeGetTrustPointResult(coder.encode(['string', 'uint8'], [HASH, 1]))).toEqual({
      found: true,
      hash: HASH,
      type: 'Revocation',
    });
  });
});

describe('isTrustPointNotFoundRevert', () => {
  it('when the revert data is the selector, then it is recognized', () => {
    expect(isTrustPointNotFoundRevert('0x16fd89cc')).toBe(true);
    expect(isTrustPointNotFoundRevert('0x09cea733')).toBe(false);
  });
});
