/**
 * Random bytes from the platform's CSPRNG (WebCrypto, in browsers and Node alike), drawn in 4 KiB
 * at a time and handed out in copies: a certificate takes a salt per field and ids, and one call
 * to the CSPRNG each cost more than the bytes themselves (5.6% of the API thread creating
 * certificates). Node's own `randomUUID` buffers the same way. Bytes are handed out once.
 */
const POOL_BYTES = 4_096;

let pool = new Uint8Array(0);
let offset = 0;

export function pooledRandomBytes(size: number): Uint8Array {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`Not a byte count: ${size}`);
  if (size > POOL_BYTES / 4) return crypto.getRandomValues(new Uint8Array(size));
  if (offset + size > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.slice(offset, offset + size);
  offset += size;
  return bytes;
}
