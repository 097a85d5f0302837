import { describe, expect, it } from 'vitest';

import { pooledRandomBytes, randomSalt } from '../src/index.js';

describe('pooledRandomBytes', () => {
  it('when many draws are taken, across several refills of the pool, then no two are equal and each has its size', () => {
    // Act: 16-byte draws over about 25 pools of 4 KiB.
    const draws = Array.from({ length: 6_400 }, (_, index) => pooledRandomBytes(1 + (index % 31)));

    // Assert
    expect(draws.every((draw, index) => draw.length === 1 + (index % 31))).toBe(true);
    const long = draws
      .filter((draw) => draw.length >= 16)
      .map((draw) => Buffer.from(draw).toString('hex'));
    expect(new Set(long).size).toBe(long.length);
  });

  it('when a draw is changed by its taker, then later draws are not: each is a copy', () => {
    // Arrange
    const first = pooledRandomBytes(16);
    first.fill(0);

    // Act
    const later = Array.from({ length: 8 }, () => pooledRandomBytes(16));

    // Assert: 128 zero bits in a row from a CSPRNG would be a 2^-128 event.
    expect(later.some((draw) => draw.every((byte) => byte === 0))).toBe(false);
  });

  it('when more than a quarter of the pool is asked, then it comes from the CSPRNG directly', () => {
    const big = pooledRandomBytes(2_000);
    const zero = pooledRandomBytes(0);

    expect(big.length).toBe(2_000);
    expect(new Set(big).size).toBeGreaterThan(200);
    expect(zero.length).toBe(0);
  });

  it('when the size is not a byte count, then RangeError', () => {
    expect(() => pooledRandomBytes(-1)).toThrow(RangeError);
    expect(() => pooledRandomBytes(1.5)).toThrow(RangeError);
  });

  it('when salts are drawn, then each is 128 bits in base64url, and all differ', () => {
    const salts = Array.from({ length: 2_000 }, () => randomSalt());

    expect(salts.every((salt) => /^[A-Za-z0-9_-]{22}$/.test(salt))).toBe(true);
    expect(new Set(salts).size).toBe(salts.length);
  });
});
