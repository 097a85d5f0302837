import { createHash } from 'node:crypto';

import { sha256 } from './sha256.js';

/** The hashes a file certificate records, plus the byte count seen. */
export interface FileHashes {
  /** `sha256(file bytes)`: what `sha256sum` prints, so the file can be found by it. */
  fileHash: string;
  /** `doubleHash(file bytes)`: the certificate's `data.hash`. */
  hash: string;
  size: number;
}

/** Incremental file hashing for callers that push chunks (e.g. a multipart parser). */
export interface FileHasher {
  update(chunk: Uint8Array): void;
  /** Ends hashing; a second call or a later `update` throws, as the digest state is consumed. */
  digest(): FileHashes;
}

export function createFileHasher(): FileHasher {
  const inner = createHash('sha256');
  let size = 0;
  let finished = false;

  const assertOpen = (): void => {
    if (finished) {
      throw new Error('The file hasher has already produced its digest');
    }
  };

  return {
    update(chunk) {
      assertOpen();
      // A Readable with an encoding set yields strings, whose bytes would depend on that encoding.
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError('File chunks must be bytes (Uint8Array); remove any stream encoding');
      }
      inner.update(chunk);
      size += chunk.byteLength;
    },
    digest() {
      assertOpen();
      finished = true;
      // The double hash is taken over the raw inner digest, so only 32 bytes are ever kept.
      const fileDigest = inner.digest();
      return { fileHash: fileDigest.toString('hex'), hash: sha256(fileDigest), size };
    },
  };
}

/**
 * Hashes a byte stream (a Node Readable is an AsyncIterable) in constant memory: each chunk is
 * fed to the hash and dropped, never collected.
 */
export async function hashFileStream(source: AsyncIterable<Uint8Array>): Promise<FileHashes> {
  const hasher = createFileHasher();
  for await (const chunk of source) {
    hasher.update(chunk);
  }
  return hasher.digest();
}

/** One-shot form for bytes already in memory; same results as streaming them. */
export function hashFileBytes(bytes: Uint8Array): FileHashes {
  const hasher = createFileHasher();
  hasher.update(bytes);
  return hasher.digest();
}
