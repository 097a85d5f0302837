import { percentEncoded } from './percent-encoding.js';
import fc from 'fast-check';
import { jsonString, jsonToken, type JsonNode } from './json-text.js';

/**
 * Values at the edges of what a caller can send: the inputs that found 500s before. Each
 * arbitrary here is one family; the request generator mixes them into otherwise valid requests.
 */

/** Text that is valid JSON but troublesome downstream: U+0000, lone surrogates, huge, odd scripts. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udc00x',
    'x\udbff',
    '\ufeff',
    '\u2028\u2029',
    '\u202eevil',
    'e\u0301',
    '🧾'.repeat(3),
    "' OR 1=1 --",
    '${jndi:ldap://x}',
    '../../../../etc/passwd',
    '%00',
    '%FF',
    'null',
    '{}',
    '__proto__',
    '\\',
    '"',
    '\r\n',
    '1e400',
    'NaN',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom(1_000, 70_000, 300_000).map((length) => 'x'.repeat(length)),
);

/** Number tokens valid in JSON text that a double holds badly or not at all. */
export const oddNumberToken: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '-1',
    '1.5',
    '1e400',
    '-1e400',
    '1e-400',
    '9007199254740993',
    '-9007199254740993',
    '18446744073709551616',
    '123456789012345678901234567890',
    '2147483648',
    '-2147483649',
    '0.1e1',
    '1E2',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
);

/** Member names that prototype-based code treats specially, or that storage cannot hold. */
export const oddKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    '$where',
    'a.b',
    'a[0]',
    '\u0000',
    '\ud800',
    'x'.repeat(10_000),
  ),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

const oddLeaf: fc.Arbitrary<JsonNode> = fc.oneof(
  oddString.map(jsonString),
  oddNumberToken.map(jsonToken),
  fc.constantFrom('true', 'false', 'null').map(jsonToken),
);

/** Any JSON shape: wrong types, odd leaves, odd members, and nesting deep enough to break recursion. */
export const oddJson: fc.Arbitrary<JsonNode> = fc.oneof(
  { weight: 4, arbitrary: oddLeaf },
  {
    weight: 2,
    arbitrary: fc
      .array(oddLeaf, { maxLength: 4 })
      .map((items): JsonNode => ({ kind: 'array', items })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(oddKey, oddLeaf), { maxLength: 4 })
      .map((members): JsonNode => ({ kind: 'object', members })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        depth: fc.constantFrom(50, 1_000, 10_000, 100_000),
        container: fc.constantFrom('array' as const, 'object' as const),
        inner: oddLeaf,
      })
      .map((nested): JsonNode => ({ kind: 'nested', ...nested })),
  },
);

/** Raw (already percent-encoded) path segments: undecodable, encoded slashes, dot segments, huge. */
export const oddPathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%FF',
    '%E0%A4%A',
    '%E0%A4',
    '%',
    '%G0',
    '%C0%AF',
    '%ED%A0%80',
    '%00',
    'a%00b',
    '%2F',
    'a%2Fb',
    '%2e%2e',
    '..',
    '.',
    '%20',
    '%F0%9F%A7%BE',
    '%EF%BF%BF',
    '~',
    "!$&'()*+,;=:@",
    'a'.repeat(10_000),
    '%41'.repeat(3_000),
  ),
  fc.string({ unit: 'binary', maxLength: 16 }).map(percentEncoded),
);

/** Raw (already encoded) query values: numbers out of range, NaN, undecodable, huge. */
export const oddQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1.5',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e400',
    '9007199254740993',
    '99999999999999999999999',
    '0x10',
    '%FF',
    '%E0%A4%A',
    '%00',
    '+',
    '%2B1',
    'true',
    'TRUE',
    'null',
    'undefined',
    '[]',
    '{}',
    ',',
    ',,,',
    'a'.repeat(100_000),
  ),
  oddNumberToken,
  fc.string({ unit: 'binary', maxLength: 16 }).map(percentEncoded),
);
