import { Readable } from 'node:stream';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { createFileHasher, hashFileBytes, hashFileStream } from './file-hasher.js';
import { doubleHash, sha256 } from './sha256.js';
import { nextTick } from '../../test/next-tick.js';

async function* chunksOf(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (const size of sizes) {
    if (offset >= bytes.byteLength) {
      break;
    }
    await nextTick();
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
  if (offset < bytes.byteLength) {
    await nextTick();
    yield bytes.subarray(offset);
  }
}

describe('hashFileBytes', () => {
  it('when hashing bytes, then fileHash is sha256, hash is doubleHash and size is the length', () => {
    // Arrange
    const bytes = Buffer.from('certify me\n');

    // Act
    const hashes = hashFileBytes(bytes);

    // Assert
    expect(hashes).toEqual({
      fileHash: sha256(bytes),
      hash: doubleHash(bytes),
      size: 11,
      hashDomain: null,
    });
  });
});

describe('hashFileStream', () => {
  it('when the stream is split into any chunks, then the result equals one-shot hashing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4096 }),
        fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 40 }),
        async (bytes, sizes) => {
          const streamed = await hashFileStream(chunksOf(bytes, sizes));

          expect(streamed).toEqual(hashFileBytes(bytes));
        },
      ),
    );
  });

  it('when given a Node Readable, then it hashes the bytes it yields', async () => {
    const parts = [Buffer.from('part one, '), Buffer.from('part two')];

    const hashes = await hashFileStream(Readable.from(parts));

    expect(hashes).toEqual(hashFileBytes(Buffer.concat(parts)));
  });

  it('when the Readable yields strings (an encoding was set), then it rejects', async () => {
    const stream = Readable.from(['text']);

    await expect(hashFileStream(stream)).rejects.toThrow(TypeError);
  });

  it('when the stream is empty, then it returns the hashes of zero bytes', async () => {
    const hashes = await hashFileStream(Readable.from([]));

    expect(hashes).toEqual({
      fileHash: sha256(new Uint8Array()),
      hash: doubleHash(new Uint8Array()),
      size: 0,
      hashDomain: null,
    });
  });
});

describe('createFileHasher', () => {
  it('when chunks are pushed, then the digest equals hashing their concatenation', () => {
    const hasher = createFileHasher();

    hasher.update(Buffer.from('ab'));
    hasher.update(new Uint8Array([0x63]));

    expect(hasher.digest()).toEqual(hashFileBytes(Buffer.from('abc')));
  });

  it('when used after its digest, then update and digest throw', () => {
    const hasher = createFileHasher();
    hasher.digest();

    expect(() => {
      hasher.update(new Uint8Array([1]));
    }).toThrow(/already produced/);
    expect(() => hasher.digest()).toThrow(/already produced/);
  });
});
