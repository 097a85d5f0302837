import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { bytes32ToHash, hashToBytes32 } from './bytes32.js';

describe('bytes32 conversion', () => {
  it('when converting any hash to a word and back, then it is unchanged', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const hash = Buffer.from(bytes).toString('hex');

        const word = hashToBytes32(hash);

        expect(word).toBe(`0x${hash}`);
        expect(bytes32ToHash(word)).toBe(hash);
      }),
    );
  });

  it('when a word uses uppercase hex, then the hash is lowercase', () => {
    expect(bytes32ToHash(`0x${'AB'.repeat(32)}`)).toBe('ab'.repeat(32));
  });

  it.each([['ab'.repeat(31)], [`0x${'ab'.repeat(32)}`], ['AB'.repeat(32)]])(
    'when the hash is %s, then hashToBytes32 rejects it',
    (hash) => {
      expect(() => hashToBytes32(hash)).toThrow(TypeError);
    },
  );

  it.each([['ab'.repeat(32)], [`0x${'ab'.repeat(33)}`]])(
    'when the word is %s, then bytes32ToHash rejects it',
    (word) => {
      expect(() => bytes32ToHash(word)).toThrow(TypeError);
    },
  );
});
