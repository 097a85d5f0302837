import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPinCipher } from '../src/certificates/pin-cipher.js';

describe('createPinCipher', () => {
  const key = randomBytes(32);
  const cipher = createPinCipher(key);

  it('when PINs of different lengths are sealed, then readers see sealed values of one size, each opening to its own PIN only', () => {
    // Arrange
    const pins = ['1234', '12345678', 'correct horse battery staple', 'é'.repeat(30)];

    // Act
    const sealed = pins.map((pin) => cipher.encrypt(pin));

    // Assert
    expect(new Set(sealed.map((value) => value.length)).size).toBe(1);
    expect(sealed.every((value) => value.startsWith('v2.'))).toBe(true);
    pins.forEach((pin, index) => {
      expect(cipher.matches(pin, sealed[index] ?? '')).toBe(true);
      expect(cipher.matches(`${pin}0`, sealed[index] ?? '')).toBe(false);
      expect(cipher.matches(pin.slice(1), sealed[index] ?? '')).toBe(false);
    });
  });

  it('when a PIN is long (128 characters), then it seals and opens; a PIN sealed before the padding (v1) still opens', () => {
    // Arrange: v1 was the PIN's bytes sealed as they were.
    const long = '€'.repeat(128);
    const iv = randomBytes(12);
    const v1 = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([v1.update('4321', 'utf8'), v1.final()]);
    const sealedV1 = `v1.${Buffer.concat([iv, v1.getAuthTag(), body]).toString('base64url')}`;

    // Act
    const sealedLong = cipher.encrypt(long);

    // Assert
    expect(cipher.matches(long, sealedLong)).toBe(true);
    expect(cipher.matches('4321', sealedV1)).toBe(true);
    expect(cipher.matches('1234', sealedV1)).toBe(false);
  });

  it('when a sealed value is changed or sealed under another key, then nothing matches', () => {
    // Arrange
    const sealed = cipher.encrypt('2468');
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'AB' : 'AA'}`;

    // Act and assert
    expect(cipher.matches('2468', flipped)).toBe(false);
    expect(createPinCipher(randomBytes(32)).matches('2468', sealed)).toBe(false);
    expect(cipher.matches('2468', 'v3.xyz')).toBe(false);
  });
});
