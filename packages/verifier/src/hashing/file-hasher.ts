import { sha256 as nobleSha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

import { CERTIFICATE_ROOT_DOMAIN_V2 } from '../disclosure/certificate-payload-v2.js';
import { ASSET_HASH_DOMAIN_V2 } from './asset-hash-v2.js';
import { sha256, utf8Bytes } from './sha256.js';

/** The hashes a file certificate records, plus the byte count seen. */
export interface FileHashes {
  /** `sha256(file bytes)`: what `sha256sum` prints, so the file can be found by it. */
  fileHash: string;
  /** `doubleHash(file bytes)`: the certificate's `data.hash`. */
  hash: string;
  size: number;
  /**
   * The version 2 hashing domain the bytes begin with (`CERTIFICATE_ROOT_DOMAIN_V2`,
   * `ASSET_HASH_DOMAIN_V2`), null for any other file. Such bytes are what a version 2 hash is
   * made from: their version 1 file hash is a version 2 certificate's root, so a verifier refuses
   * them as the file of a version 1 certificate.
   */
  hashDomain: string | null;
}

/** The domains every version 2 hash begins its hashed bytes with. */
const HASH_DOMAINS_V2 = [CERTIFICATE_ROOT_DOMAIN_V2, ASSET_HASH_DOMAIN_V2].map((domain) => ({
  domain,
  bytes: utf8Bytes(domain),
}));
const HEAD_LENGTH = Math.max(...HASH_DOMAINS_V2.map(({ bytes }) => bytes.length));

function hashDomainOf(head: Uint8Array): string | null {
  const found = HASH_DOMAINS_V2.find(
    ({ bytes }) =>
      head.length >= bytes.length && bytes.every((byte, index) => head[index] === byte),
  );
  return found?.domain ?? null;
}

/** Incremental file hashing for callers that push chunks (e.g. a multipart parser). */
export interface FileHasher {
  update(chunk: Uint8Array): void;
  /** Ends hashing; a second call or a later `update` throws, as the digest state is consumed. */
  digest(): FileHashes;
}

/** An incremental SHA-256 (noble's, Node's `createHash('sha256')`, ...). */
export interface IncrementalSha256 {
  update(chunk: Uint8Array): unknown;
  /** The raw 32-byte digest. */
  digest(): Uint8Array;
}

export interface FileHasherOptions {
  /**
   * Where the SHA-256 of the file's bytes comes from. The rule is the same whatever computes it;
   * the default is pure JavaScript (works in a browser), a server may pass a native one for speed.
   */
  createSha256?: () => IncrementalSha256;
}

const pureJsSha256 = (): IncrementalSha256 => nobleSha256.create();

export function createFileHasher(options: FileHasherOptions = {}): FileHasher {
  const inner = (options.createSha256 ?? pureJsSha256)();
  // The file's first bytes, however it is cut into chunks: enough to tell a hashing domain.
  const head = new Uint8Array(HEAD_LENGTH);
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
      if (size < HEAD_LENGTH) head.set(chunk.subarray(0, HEAD_LENGTH - size), size);
      size += chunk.byteLength;
    },
    digest() {
      assertOpen();
      finished = true;
      // The double hash is taken over the raw inner digest, so only 32 bytes are ever kept.
      const fileDigest = inner.digest();
      return {
        fileHash: bytesToHex(fileDigest),
        hash: sha256(fileDigest),
        size,
        hashDomain: hashDomainOf(head.subarray(0, Math.min(size, HEAD_LENGTH))),
      };
    },
  };
}

/**
 * Hashes a byte stream (a Node Readable, or a web ReadableStream in runtimes where it is async
 * iterable) in constant memory: each chunk is fed to the hash and dropped, never collected.
 */
export async function hashFileStream(
  source: AsyncIterable<Uint8Array>,
  options: FileHasherOptions = {},
): Promise<FileHashes> {
  const hasher = createFileHasher(options);
  for await (const chunk of source) {
    hasher.update(chunk);
  }
  return hasher.digest();
}

/** One-shot form for bytes already in memory; same results as streaming them. */
export function hashFileBytes(bytes: Uint8Array, options: FileHasherOptions = {}): FileHashes {
  const hasher = createFileHasher(options);
  hasher.update(bytes);
  return hasher.digest();
}
