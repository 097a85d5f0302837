import canonicalize from 'canonicalize';

import { utf8Bytes } from './sha256.js';

/** A value RFC 8785 (JCS) can serialize. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Thrown when a value has no JSON form; `path` points at the offending member (`$.a[0]`). */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';

  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`Cannot canonicalize the value at ${path}: ${reason}`);
  }
}

/**
 * RFC 8785 canonical JSON text of `value`.
 *
 * The value is checked first because `canonicalize` follows `JSON.stringify` and would silently
 * turn some non-JSON values into text (a function member becomes `undefined`, a Date its ISO
 * string), and a hash over such text could never be reproduced by another implementation.
 * Object members whose value is `undefined` are omitted, as JSON has no such member; everywhere
 * else `undefined` is rejected.
 */
export function canonicalJson(value: unknown): string {
  assertJsonRepresentable(value, '$', new Set());
  const text = canonicalize(value);
  if (text === undefined) {
    // Unreachable after the check above; kept so a library change cannot yield an empty hash input.
    throw new CanonicalJsonError('$', 'the serializer returned no text');
  }
  return text;
}

/** UTF-8 bytes of the RFC 8785 canonical JSON text: what every JSON hash rule hashes. */
export function canonicalJsonBytes(value: unknown): Uint8Array {
  return utf8Bytes(canonicalJson(value));
}

function assertJsonRepresentable(value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'boolean':
      return;
    case 'string':
      assertWellFormed(value, path);
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new CanonicalJsonError(path, `${String(value)} has no JSON representation`);
      }
      return;
    case 'bigint':
      throw new CanonicalJsonError(
        path,
        'a BigInt has no JSON representation; use a string or a number',
      );
    case 'undefined':
      throw new CanonicalJsonError(path, 'undefined has no JSON representation');
    case 'function':
    case 'symbol':
      throw new CanonicalJsonError(path, `a ${typeof value} has no JSON representation`);
    case 'object':
      break;
  }
  if (value === null) {
    return;
  }
  if (ancestors.has(value)) {
    throw new CanonicalJsonError(path, 'circular reference');
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      assertJsonRepresentable(item, `${path}[${index}]`, ancestors);
    });
  } else {
    assertPlainObject(value, path);
    for (const [key, member] of Object.entries(value)) {
      const memberPath = IDENTIFIER.test(key)
        ? `${path}.${key}`
        : `${path}[${JSON.stringify(key)}]`;
      assertWellFormed(key, memberPath);
      if (member !== undefined) {
        assertJsonRepresentable(member, memberPath, ancestors);
      }
    }
  }
  ancestors.delete(value);
}

function assertPlainObject(value: object, path: string): void {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    const kind = Object.prototype.toString.call(value);
    throw new CanonicalJsonError(path, `${kind} is not a plain JSON object; convert it first`);
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// In a `u` regex a surrogate pair is one code point, so only unpaired halves match \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/u;

function assertWellFormed(text: string, path: string): void {
  // A lone surrogate has no UTF-8 encoding, so the hashed bytes would be ambiguous.
  if (LONE_SURROGATE.test(text)) {
    throw new CanonicalJsonError(path, 'the string contains a lone surrogate');
  }
}
