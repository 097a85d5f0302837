import { pooledRandomBytes } from '@trustpoint/verifier';

/**
 * UUIDv7 (RFC 9562 section 5.7): 48-bit Unix milliseconds, version 7, a 12-bit counter in
 * `rand_a` (monotonicity method 1, section 6.2), variant 10, 62 random bits in `rand_b`.
 * Ids sort by creation time, so database inserts stay local in indexes.
 */

export const UUID_V7_PATTERN =
  /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface UuidV7Options {
  /** Milliseconds since the epoch; injectable so tests are deterministic. */
  now?: () => number;
  /** Returns `size` random bytes; injectable for the same reason. */
  randomBytes?: (size: number) => Uint8Array;
}

export type UuidV7Generator = () => string;

const MAX_UNIX_MS = 2 ** 48 - 1;
const MAX_COUNTER = 0xfff;
// The seed leaves the counter's top bit clear (RFC 9562 6.2), so at least 2048 ids fit in a millisecond.
const COUNTER_SEED_MASK = 0x7ff;
const RAND_B_MASK = (1n << 62n) - 1n;

/**
 * A generator whose ids strictly increase, even for many ids in one millisecond or when the clock
 * steps back: then the last timestamp is reused and the counter advances (borrowing the next
 * millisecond when the counter is exhausted).
 */
export function createUuidV7Generator(options: UuidV7Options = {}): UuidV7Generator {
  const now = options.now ?? Date.now;
  const randomBytes = options.randomBytes ?? pooledRandomBytes;
  let lastMs = -1;
  let counter = 0;

  return () => {
    const random = randomBytes(10);
    if (random.byteLength < 10) {
      throw new RangeError('randomBytes must return the requested number of bytes');
    }
    const view = new DataView(random.buffer, random.byteOffset, random.byteLength);
    const seed = view.getUint16(0) & COUNTER_SEED_MASK;
    const randB = view.getBigUint64(2) & RAND_B_MASK;

    const ms = now();
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new RangeError(`The clock returned an invalid time: ${ms}`);
    }
    if (ms > lastMs) {
      lastMs = ms;
      counter = seed;
    } else if (counter < MAX_COUNTER) {
      counter += 1;
    } else {
      lastMs += 1;
      counter = seed;
    }
    if (lastMs > MAX_UNIX_MS) {
      throw new RangeError('The time does not fit the 48-bit UUIDv7 timestamp');
    }

    const value =
      (BigInt(lastMs) << 80n) | (0x7n << 76n) | (BigInt(counter) << 64n) | (0b10n << 62n) | randB;
    const hex = value.toString(16).padStart(32, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** Process-wide generator on the system clock and the CSPRNG (through its pool). */
export const newUuidV7: UuidV7Generator = createUuidV7Generator();

/** Lowercase canonical text form with version 7 and the RFC variant. */
export function isUuidV7(value: string): boolean {
  return UUID_V7_PATTERN.test(value);
}

/** The creation time (Unix milliseconds) embedded in a UUIDv7. */
export function uuidV7Timestamp(uuid: string): number {
  if (!isUuidV7(uuid)) {
    throw new TypeError(`Not a UUIDv7: ${uuid}`);
  }
  return Number.parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16);
}
