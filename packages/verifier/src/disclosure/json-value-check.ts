import type { JsonValue } from '../hashing/canonical-json.js';
import type { DisclosurePath } from './disclosure-path.js';
import { SelectiveDisclosureError } from './selective-disclosure-error.js';

/** Member names the selective-disclosure syntax gives a meaning (RFC 9901): never a field's name. */
export const RESERVED_MEMBER_NAMES: ReadonlySet<string> = new Set(['_sd', '...']);

// In a `u` regex a surrogate pair is one code point, so only unpaired halves match \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Checks that `value` is I-JSON (RFC 7493) with no reserved member name, and says where it is not.
 * I-JSON because every implementation must read the same value back: an integer beyond
 * ±(2^53 − 1) is rounded by JavaScript and many other parsers, so what is shown would differ from
 * what was hashed; NaN and Infinity have no JSON form; a lone surrogate has no UTF-8 form.
 * `0`, `false`, `""`, `null`, `{}` and `[]` are values like any other and are covered.
 */
export function assertDisclosableJson(
  value: unknown,
  path: DisclosurePath,
  ancestors: Set<object> = new Set(),
): asserts value is JsonValue {
  switch (typeof value) {
    case 'boolean':
      return;
    case 'string':
      assertWellFormed(value, path);
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new SelectiveDisclosureError('notIJson', `${String(value)} has no JSON form`, path);
      }
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        throw new SelectiveDisclosureError(
          'notIJson',
          `the integer ${String(value)} is beyond ±(2^53 − 1), where JSON readers disagree (I-JSON, RFC 7493); send it as a string`,
          path,
        );
      }
      return;
    case 'object':
      break;
    default:
      throw new SelectiveDisclosureError('notIJson', `a ${typeof value} is not a JSON value`, path);
  }
  if (value === null) return;
  if (ancestors.has(value)) {
    throw new SelectiveDisclosureError('notIJson', 'circular reference', path);
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      assertDisclosableJson(item, [...path, index], ancestors);
    });
  } else {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new SelectiveDisclosureError('notIJson', 'not a plain JSON object', path);
    }
    for (const [name, member] of Object.entries(value)) {
      assertMemberName(name, [...path, name]);
      assertDisclosableJson(member, [...path, name], ancestors);
    }
  }
  ancestors.delete(value);
}

export function assertMemberName(name: string, path: DisclosurePath): void {
  if (RESERVED_MEMBER_NAMES.has(name)) {
    throw new SelectiveDisclosureError(
      'reservedName',
      `a member may not be named ${JSON.stringify(name)}: selective disclosure reserves it`,
      path,
    );
  }
  assertWellFormed(name, path);
}

function assertWellFormed(text: string, path: DisclosurePath): void {
  if (LONE_SURROGATE.test(text)) {
    throw new SelectiveDisclosureError('notIJson', 'the text holds a lone surrogate', path);
  }
}

/**
 * Sets an own enumerable member, even one named `__proto__` (a plain assignment would set the
 * prototype instead, and the member would vanish from what is shown and hashed).
 */
export function defineMember(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
