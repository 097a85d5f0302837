import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { canonicalJson } from '../hashing/canonical-json.js';
import { REQUEST_LIMITS } from '../requests/request-limits.js';
import { sentJsonObjectSchema, jsonObjectSchema, UNSAFE_INTEGER_PROBLEM } from './json-object.js';

function issuesOf(value: unknown) {
  const result = jsonObjectSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map(({ path, message }) => ({ path, message }));
}

/** `depth` levels of objects, the root included. */
function nested(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

describe('jsonObjectSchema', () => {
  it('when a member is named __proto__, then the object passes unchanged with that member', () => {
    const sent = JSON.parse('{"__proto__":{"x":1},"b":[{"__proto__":2}]}') as object;

    const parsed = jsonObjectSchema.parse(sent);

    expect(parsed).toBe(sent);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'b']);
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"b":[{"__proto__":2}]}');
  });

  it('when any JSON object text is parsed, then it passes as the same object and re-serializes to the same canonical text', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })),
        fc.constantFrom('__proto__', 'constructor', 'toString'),
        (object, specialKey) => {
          const text = JSON.stringify({ ...object, [specialKey]: object });
          const sent = JSON.parse(text) as object;
          const parsed = jsonObjectSchema.safeParse(sent);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toBe(sent);
          expect(canonicalJson(parsed.data)).toBe(canonicalJson(JSON.parse(text)));
        },
      ),
    );
  });

  it('when a value or a member name holds U+0000, then the issue names its path', () => {
    expect(issuesOf({ a: { b: ['x', 'y\u0000'] } })).toEqual([
      { path: ['a', 'b', 1], message: 'Must not contain the character U+0000 (NUL)' },
    ]);
    expect(issuesOf({ 'k\u0000': 1 })).toEqual([
      { path: ['k\u0000'], message: 'Member name: Must not contain the character U+0000 (NUL)' },
    ]);
  });

  it('when a string holds a lone surrogate, then it is refused, while a surrogate pair passes', () => {
    expect(issuesOf({ a: '\ud800' })).toHaveLength(1);
    expect(issuesOf({ a: 'x\udc00y' })).toHaveLength(1);
    expect(issuesOf({ ['\udfff']: 1 })).toHaveLength(1);
    expect(issuesOf({ a: '\ud83d\ude00' })).toEqual([]);
  });

  it('when nesting passes the depth limit, then it is refused, and at the limit it passes', () => {
    expect(issuesOf(nested(REQUEST_LIMITS.jsonMaxDepth))).toEqual([]);
    expect(issuesOf(nested(REQUEST_LIMITS.jsonMaxDepth + 1))).toHaveLength(1);
  });

  it('when the value is not a plain JSON object, then it is refused', () => {
    for (const value of [null, [], 'text', 1, undefined, new Date(0), { a: Number.NaN }]) {
      expect(issuesOf(value)).not.toEqual([]);
    }
  });
});

describe('sentJsonObjectSchema', () => {
  const issuesOfSent = (text: string) => {
    const result = sentJsonObjectSchema.safeParse(JSON.parse(text));
    return result.success
      ? []
      : result.error.issues.map(({ path, message }) => ({ path, message }));
  };

  it('when an integer beyond 2^53 - 1 is sent, then each one is refused at its path', () => {
    // Arrange: JSON.parse rounds both to the nearest double, losing digits.
    const text = '{"x":123456789012345678901234567890,"a":[{"b":-9007199254740993}]}';

    // Act
    const issues = issuesOfSent(text);

    // Assert
    expect(issues).toEqual([
      { path: ['x'], message: UNSAFE_INTEGER_PROBLEM },
      { path: ['a', 0, 'b'], message: UNSAFE_INTEGER_PROBLEM },
    ]);
  });

  it('when integers up to 2^53 - 1 and fractions are sent, then they pass', () => {
    // Arrange
    const text = '{"max":9007199254740991,"min":-9007199254740991,"f":1250.5,"tiny":1e-300}';

    // Act
    const issues = issuesOfSent(text);

    // Assert
    expect(issues).toEqual([]);
  });

  it('when an object shows such an integer, then jsonObjectSchema (what certificates show) still accepts it', () => {
    // Arrange: a certificate issued before the rule.
    const shown = { x: 1.2345678901234568e29 };

    // Act
    const result = jsonObjectSchema.safeParse(shown);

    // Assert
    expect(result.success).toBe(true);
  });
});
