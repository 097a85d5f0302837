import { createFileHasher, type FileHashes } from '@trustpoint/verifier';

/**
 * Hashes a file in the browser chunk by chunk, in constant memory: WebCrypto's `digest` takes the
 * whole file at once, so the verifier package's incremental SHA-256 is fed from `file.stream()`.
 * The same rule (`sha256`, then `doubleHash` of the raw digest) as `trustpoint verify --file`.
 */
export async function hashFile(
  file: Blob,
  onProgress: (hashedBytes: number) => void,
): Promise<FileHashes> {
  const hasher = createFileHasher();
  const reader = file.stream().getReader();
  let hashed = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hasher.update(value);
    hashed += value.byteLength;
    onProgress(hashed);
  }
  return hasher.digest();
}
