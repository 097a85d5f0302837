import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Certificate PINs are stored and returned encrypted (AES-256-GCM under the service's key) and
 * compared in constant time, so neither the database nor the API ever shows one in clear.
 */
export interface PinCipher {
  encrypt(pin: string): string;
  /** Whether `pin` is the one sealed in `encrypted`; false for anything undecryptable. */
  matches(pin: string, encrypted: string): boolean;
}

/** v1 sealed the PIN's bytes as they were: the length of what readers see gave away the PIN's. */
const UNPADDED = 'v1';
/** v2 seals them with their length in front, padded to a fixed size. */
const PADDED = 'v2';
/** Every PIN of up to 62 UTF-8 bytes seals to the same size; a longer one (up to 128 characters, 384 bytes) to the next. */
const PADDED_SIZES = [64, 2 + 384];

function padded(pin: string): Buffer {
  const bytes = Buffer.from(pin, 'utf8');
  const size = PADDED_SIZES.find((candidate) => candidate >= bytes.length + 2) ?? bytes.length + 2;
  const block = Buffer.alloc(size);
  block.writeUInt16BE(bytes.length, 0);
  bytes.copy(block, 2);
  return block;
}

function unpadded(block: Buffer): string | undefined {
  if (block.length < 2) return undefined;
  const length = block.readUInt16BE(0);
  if (length > block.length - 2) return undefined;
  return block.subarray(2, 2 + length).toString('utf8');
}

export function createPinCipher(key: Buffer): PinCipher {
  if (key.length !== 32) throw new Error('The PIN key must be 32 bytes');
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return {
    encrypt(pin) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(padded(pin)), cipher.final()]);
      return `${PADDED}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
    },
    matches(pin, encrypted) {
      const [version, payload] = encrypted.split('.');
      if ((version !== UNPADDED && version !== PADDED) || payload === undefined) return false;
      const bytes = Buffer.from(payload, 'base64url');
      if (bytes.length < 28) return false;
      let stored: string | undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(12, 28));
        const opened = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
        stored = version === PADDED ? unpadded(opened) : opened.toString('utf8');
      } catch {
        return false;
      }
      if (stored === undefined) return false;
      // Equal-length digests, so the comparison takes the same time whatever the PINs are.
      return timingSafeEqual(digest(pin), digest(stored));
    },
  };
}
