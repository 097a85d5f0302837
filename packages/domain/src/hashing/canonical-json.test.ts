import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { CanonicalJsonError, canonicalJson, canonicalJsonBytes } from './canonical-json.js';

/** A copy of `value` whose objects list their keys in a shuffled order. */
function reorderKeys(value: unknown, shuffle: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) {
    return value.map((item: unknown) => reorderKeys(item, shuffle));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const byKey = new Map(entries);
    return Object.fromEntries(
      shuffle(entries.map(([key]) => key)).map((key) => [
        key,
        reorderKeys(byKey.get(key), shuffle),
      ]),
    );
  }
  return value;
}

// Full Unicode strings, so key sorting by UTF-16 code units is exercised beyond ASCII.
const jsonValues = fc.jsonValue({ stringUnit: 'grapheme' });

describe('canonicalJson', () => {
  it('when given an object, then keys are sorted and whitespace removed', () => {
    // Arrange
    const value = { b: 1, a: { d: [3, 'x'], c: null } };

    // Act
    const text = canonicalJson(value);

    // Assert
    expect(text).toBe('{"a":{"c":null,"d":[3,"x"]},"b":1}');
  });

  it('when given non-ASCII text, then the bytes are its UTF-8 encoding', () => {
    expect(Buffer.from(canonicalJsonBytes({ k: 'é' })).toString('hex')).toBe(
      Buffer.from('{"k":"é"}', 'utf8').toString('hex'),
    );
  });

  it('when an object member is undefined, then the member is omitted', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it.each([
    ['undefined at the top level', undefined, '$'],
    ['NaN', { n: Number.NaN }, '$.n'],
    ['Infinity', [1, Number.POSITIVE_INFINITY], '$[1]'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '$'],
    ['a BigInt', { big: 10n }, '$.big'],
    ['undefined in an array', [undefined], '$[0]'],
    ['a function member', { f: () => 1 }, '$.f'],
    ['a symbol', Symbol('s'), '$'],
    ['a Date', { when: new Date(0) }, '$.when'],
    ['a Map', new Map([['a', 1]]), '$'],
    ['a lone surrogate in a value', { s: '\ud800' }, '$.s'],
    ['a lone surrogate in a key', { '\udc00': 1 }, '$["\\udc00"]'],
  ])('when given %s, then it throws CanonicalJsonError naming the path', (_, value, path) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(value)).toThrow(`at ${path}:`);
  });

  it('when given a circular structure, then it throws CanonicalJsonError', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;

    expect(() => canonicalJson(cycle)).toThrow(/circular/);
  });

  it('when the same object appears twice without a cycle, then it is serialized twice', () => {
    const shared = { x: 1 };

    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('when canonicalizing the parse of a canonical text, then the text is unchanged', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        const once = canonicalJson(value);

        expect(canonicalJson(JSON.parse(once))).toBe(once);
      }),
    );
  });

  it('when object keys are shuffled, then the canonical bytes are identical', () => {
    fc.assert(
      fc.property(jsonValues, fc.func(fc.integer()), (value, rank) => {
        const shuffle = (keys: string[]): string[] =>
          keys
            .map((key) => ({ key, order: rank(key) }))
            .sort((a, b) => a.order - b.order)
            .map(({ key }) => key);
        const reordered = reorderKeys(value, shuffle);

        expect(Buffer.from(canonicalJsonBytes(reordered))).toEqual(
          Buffer.from(canonicalJsonBytes(value)),
        );
      }),
    );
  });

  it('when parsing the canonical text, then the same value comes back', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        // JSON has no minus zero; -0 and 0 are the same JSON number.
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
