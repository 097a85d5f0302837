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

const VERSION = 'v1';

export function createPinCipher(key: Buffer): PinCipher {
  if (key.length !== 32) throw new Error('The PIN key must be 32 bytes');
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return {
    encrypt(pin) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(pin, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
    },
    matches(pin, encrypted) {
      const [version, payload] = encrypted.split('.');
      if (version !== VERSION || payload === undefined) return false;
      const bytes = Buffer.from(payload, 'base64url');
      if (bytes.length < 28) return false;
      let stored: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(12, 28));
        stored = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        return false;
      }
      // Equal-length digests, so the comparison takes the same time whatever the PINs are.
      return timingSafeEqual(digest(pin), digest(stored));
    },
  };
}
