import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Endpoint signing secrets are kept sealed (AES-256-GCM under the service's key), like PINs: the
 * database alone never shows one. Unlike a PIN, a secret must be read back to sign with, so the
 * sealer opens what it sealed.
 */
export interface SecretSealer {
  seal(secret: string): string;
  /** The secret sealed in `sealed`; throws for anything this key did not seal. */
  open(sealed: string): string;
}

const VERSION = 'v1';

export function createSecretSealer(key: Buffer): SecretSealer {
  if (key.length !== 32) throw new Error('The webhook secret key must be 32 bytes');
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split('.');
      if (version !== VERSION || payload === undefined) throw new Error('Not a sealed secret');
      const bytes = Buffer.from(payload, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/**
 * A key of its own for webhook secrets, derived (HKDF-SHA256) from another 32-byte service key,
 * e.g. the PIN key: no new secret to keep, and neither key reveals the other.
 */
export function deriveWebhookKey(serviceKey: Buffer): Buffer {
  return Buffer.from(
    hkdfSync('sha256', serviceKey, Buffer.alloc(0), 'trustpoint webhook secrets', 32),
  );
}

/**
 * The key the APIs seal the answers they keep for `Idempotency-Key`s under (an API key's or an
 * endpoint's creation answer carries its secret), derived like the webhook key from a service key.
 */
export function deriveIdempotencyAnswerKey(serviceKey: Buffer): Buffer {
  return Buffer.from(
    hkdfSync('sha256', serviceKey, Buffer.alloc(0), 'trustpoint idempotent answers', 32),
  );
}
