import { concat, keccak256, toBeHex, toUtf8Bytes } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { evidenceKey, trustPointKey } from './record-key.js';

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';
const ASSET_HASH = 'ab'.repeat(32);

/** The packing written out by hand: UTF-8 id, then the timestamp as a 32-byte big-endian word. */
function packedKey(id: string, timestamp: bigint): string {
  return keccak256(concat([toUtf8Bytes(id), toBeHex(timestamp, 32)]));
}

describe('record keys', () => {
  it('when deriving any trustpoint key, then it is keccak256(utf8(certId) ++ uint256(timestamp))', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        (id, timestamp) => {
          expect(trustPointKey(id, timestamp)).toBe(packedKey(id, timestamp));
        },
      ),
    );
  });

  it('when the timestamp is a number or the same bigint, then the key is the same', () => {
    expect(trustPointKey(CERT_ID, 1767225600123)).toBe(trustPointKey(CERT_ID, 1767225600123n));
  });

  it('when the timestamp changes by one, then the key changes', () => {
    expect(evidenceKey(ASSET_HASH, 1)).not.toBe(evidenceKey(ASSET_HASH, 2));
  });

  it.each([[-1], [1.5], [2 ** 53], [-1n], [2n ** 256n]])(
    'when the timestamp is %s, then it is rejected',
    (timestamp) => {
      expect(() => trustPointKey(CERT_ID, timestamp)).toThrow(RangeError);
    },
  );

  it('when the asset hash is not 64 lowercase hex characters, then evidenceKey rejects it', () => {
    expect(() => evidenceKey(`0x${ASSET_HASH}`, 1)).toThrow(TypeError);
  });
});
