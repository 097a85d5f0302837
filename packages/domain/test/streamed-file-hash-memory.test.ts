import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { hashFileStream } from '../src/index.js';
import { nextTick } from './next-tick.js';

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(MiB, 'Trustpoint streaming test block. ');

/** JS heap plus ArrayBuffer memory: a hasher that kept chunks would grow one or the other. */
function retainedBytes(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * Yields the same chunk `count` times, generated lazily, and samples memory as it goes so the
 * peak during hashing is seen, not just the state after it.
 */
function repeatedChunks(count: number): {
  source: AsyncGenerator<Uint8Array>;
  peakGrowth: () => number;
} {
  const baseline = retainedBytes();
  let peak = baseline;
  async function* generate(): AsyncGenerator<Uint8Array> {
    for (let index = 0; index < count; index += 1) {
      if (index % 8 === 0) {
        peak = Math.max(peak, retainedBytes());
      }
      await nextTick();
      yield CHUNK;
    }
    peak = Math.max(peak, retainedBytes());
  }
  return { source: generate(), peakGrowth: () => peak - baseline };
}

describe('streamed file hashing memory', () => {
  it('when 512 MiB are streamed through the file hasher, then memory grows by well under 64 MiB', async () => {
    // Arrange
    const count = 512;
    const { source, peakGrowth } = repeatedChunks(count);

    // Act
    const hashes = await hashFileStream(source);

    // Assert
    expect(peakGrowth()).toBeLessThan(64 * MiB);
    expect(hashes.size).toBe(count * MiB);
    const reference = createHash('sha256');
    for (let index = 0; index < count; index += 1) {
      reference.update(CHUNK);
    }
    expect(hashes.fileHash).toBe(reference.digest('hex'));
  }, 30_000);

  it('when a consumer keeps the chunks, then the same probe reports the growth', async () => {
    // Control: proves the measurement above can fail if the hasher buffered its input.
    const count = 128;
    const { source, peakGrowth } = repeatedChunks(count);
    const kept: Buffer[] = [];

    for await (const chunk of source) {
      kept.push(Buffer.from(chunk));
    }

    expect(kept).toHaveLength(count);
    expect(peakGrowth()).toBeGreaterThan(64 * MiB);
  });
});
