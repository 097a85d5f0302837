import { createHash } from 'node:crypto';

import {
  createFileHasher as createFileHasherWith,
  hashFileBytes as hashFileBytesWith,
  hashFileStream as hashFileStreamWith,
  type FileHasher,
  type FileHasherOptions,
  type FileHashes,
} from '@trustpoint/verifier';

export type { FileHasher, FileHashes } from '@trustpoint/verifier';

/**
 * The file rule of @trustpoint/verifier with Node's native SHA-256 underneath: the same hashes,
 * several times faster than the pure JavaScript default on uploads of many megabytes.
 */
const nodeSha256: FileHasherOptions = { createSha256: () => createHash('sha256') };

export function createFileHasher(): FileHasher {
  return createFileHasherWith(nodeSha256);
}

/** Hashes a byte stream (a Node Readable is an AsyncIterable) in constant memory. */
export function hashFileStream(source: AsyncIterable<Uint8Array>): Promise<FileHashes> {
  return hashFileStreamWith(source, nodeSha256);
}

/** One-shot form for bytes already in memory; same results as streaming them. */
export function hashFileBytes(bytes: Uint8Array): FileHashes {
  return hashFileBytesWith(bytes, nodeSha256);
}
