import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { createUuidV7Generator, isUuidV7, newUuidV7, uuidV7Timestamp } from './uuid-v7.js';

const fixedRandom = (byte: number) => (size: number) => new Uint8Array(size).fill(byte);

describe('createUuidV7Generator', () => {
  it('when generating at a known time, then the id carries that time, version 7 and the RFC variant', () => {
    // Arrange
    const generate = createUuidV7Generator({
      now: () => 0x0194f0c47d2a,
      randomBytes: fixedRandom(0xff),
    });

    // Act
    const id = generate();

    // Assert: counter seed = 0x7ff (top bit clear), rand_b = 62 one bits.
    expect(id).toBe('0194f0c4-7d2a-77ff-bfff-ffffffffffff');
    expect(uuidV7Timestamp(id)).toBe(0x0194f0c47d2a);
  });

  it('when many ids are made in the same millisecond, then they strictly increase', () => {
    const generate = createUuidV7Generator({ now: () => 1_700_000_000_000 });

    const ids = Array.from({ length: 5000 }, () => generate());

    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('when the counter is exhausted within a millisecond, then the next millisecond is borrowed', () => {
    const generate = createUuidV7Generator({ now: () => 1000, randomBytes: fixedRandom(0xff) });

    const ids = Array.from({ length: 2050 }, () => generate());

    expect(uuidV7Timestamp(ids[0] ?? '')).toBe(1000);
    expect(uuidV7Timestamp(ids.at(-1) ?? '')).toBe(1001);
    expect([...ids].sort()).toEqual(ids);
  });

  it('when the clock steps back, then ids keep increasing', () => {
    const times = [5000, 4000, 4000, 6000];
    const generate = createUuidV7Generator({ now: () => times.shift() ?? 6000 });

    const ids = [generate(), generate(), generate(), generate()];

    expect([...ids].sort()).toEqual(ids);
    expect(uuidV7Timestamp(ids[1] ?? '')).toBe(5000);
  });

  it('when any sequence of non-decreasing times is used, then the ids are ordered by time', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 ** 47 }), { minLength: 1, maxLength: 50 }),
        (times) => {
          const sorted = [...times].sort((a, b) => a - b);
          const queue = [...sorted];
          const generate = createUuidV7Generator({ now: () => queue.shift() ?? 0 });

          const ids = sorted.map(() => generate());

          expect(ids.every(isUuidV7)).toBe(true);
          expect([...ids].sort()).toEqual(ids);
        },
      ),
    );
  });

  it.each([[-1], [1.5], [2 ** 48], [Number.NaN]])(
    'when the clock returns %s, then it throws',
    (time) => {
      const generate = createUuidV7Generator({ now: () => time });

      expect(() => generate()).toThrow(RangeError);
    },
  );
});

describe('newUuidV7', () => {
  it('when called on the system clock, then it returns a UUIDv7 of the current time', () => {
    const before = Date.now();

    const id = newUuidV7();

    expect(isUuidV7(id)).toBe(true);
    expect(uuidV7Timestamp(id)).toBeGreaterThanOrEqual(before);
    expect(uuidV7Timestamp(id)).toBeLessThanOrEqual(Date.now() + 1);
  });
});

describe('isUuidV7', () => {
  it.each([
    ['0194f0c4-7d2a-4c3e-9b1f-2a4e6c8d0f12', 'version 4'],
    ['0194f0c4-7d2a-7c3e-cb1f-2a4e6c8d0f12', 'wrong variant'],
    ['0194F0C4-7D2A-7C3E-9B1F-2A4E6C8D0F12', 'uppercase'],
    ['0194f0c47d2a7c3e9b1f2a4e6c8d0f12', 'no hyphens'],
  ])('when given %s (%s), then it is rejected', (value) => {
    expect(isUuidV7(value)).toBe(false);
  });
});
