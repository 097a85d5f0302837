import { createHash } from 'node:crypto';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { doubleHash, sha256, sha256Digest, utf8Bytes } from './sha256.js';

describe('sha256', () => {
  it('when hashing "abc", then it returns the FIPS 180-2 digest in lowercase hex without 0x', () => {
    // Arrange
    const input = utf8Bytes('abc');

    // Act
    const digest = sha256(input);

    // Assert
    expect(digest).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('when hashing any bytes, then the hex form is 64 lowercase characters of the raw digest', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const hex = sha256(bytes);

        expect(hex).toMatch(/^[0-9a-f]{64}$/);
        expect(Buffer.from(sha256Digest(bytes)).toString('hex')).toBe(hex);
      }),
    );
  });
});

describe('doubleHash', () => {
  it('when double hashing "hello", then it returns the well-known SHA256d value', () => {
    expect(doubleHash(utf8Bytes('hello'))).toBe(
      '9595c9df90075148eb06860365df33584b75bff782a510c6cd4883a419833d50',
    );
  });

  it('when double hashing any bytes, then it equals sha256 of the raw inner digest', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const rawInner = createHash('sha256').update(bytes).digest();

        expect(doubleHash(bytes)).toBe(createHash('sha256').update(rawInner).digest('hex'));
      }),
    );
  });

  it('when double hashing, then the inner digest is not fed as hex text', () => {
    const bytes = utf8Bytes('abc');

    expect(doubleHash(bytes)).not.toBe(sha256(utf8Bytes(sha256(bytes))));
  });
});

describe('utf8Bytes', () => {
  it('when encoding non-ASCII text, then it yields its UTF-8 bytes', () => {
    expect(Buffer.from(utf8Bytes('€')).toString('hex')).toBe('e282ac');
  });
});
