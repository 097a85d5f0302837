import { formatDisclosurePath } from '@trustpoint/verifier';
import { TrustpointUnsendableValueError } from './errors.js';

type Path = readonly (string | number)[];

interface Unsendable {
  path: Path;
  problem: string;
}

/**
 * Where a value would not reach the service as given, if anywhere. `JSON.stringify` sends NaN and
 * Infinity as `null` (the service would certify `null`), drops or nulls functions and symbols,
 * sends a Map or a Set as `{}`, and throws on a BigInt or a cycle. A member set to `undefined` is
 * left out as an optional field is; `-0` is sent as `0`, the same JSON number (RFC 8785 hashes it
 * as `0`, so the certificate is the one asked for). Integers beyond ±(2^53 − 1) and lone surrogates
 * reach the service as given, which refuses them with a 400 naming the field.
 */
function unsendableIn(
  value: unknown,
  path: Path,
  inArray: boolean,
  ancestors: Set<object>,
): Unsendable | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value)
        ? undefined
        : { path, problem: `${String(value)} has no JSON form (it would be sent as null)` };
    case 'bigint':
      return {
        path,
        problem:
          'a BigInt has no JSON form: send it as a string, or as a number within ±(2^53 − 1)',
      };
    case 'undefined':
      return inArray
        ? { path, problem: 'undefined in an array has no JSON form (it would be sent as null)' }
        : undefined;
    case 'function':
    case 'symbol':
      return {
        path,
        problem: `a ${typeof value} has no JSON form (it would be ${inArray ? 'sent as null' : 'left out'})`,
      };
    default:
      break;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (ancestors.has(object)) return { path, problem: 'a circular reference has no JSON form' };
  ancestors.add(object);
  try {
    return unsendableInObject(object, path, ancestors);
  } finally {
    ancestors.delete(object);
  }
}

function unsendableInObject(
  object: object,
  path: Path,
  ancestors: Set<object>,
): Unsendable | undefined {
  const toJSON: unknown = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // Its own JSON form, as JSON.stringify takes it (a Date is sent as its ISO text).
    const key = path[path.length - 1];
    return unsendableIn(toJSON.call(object, String(key ?? '')), path, false, ancestors);
  }
  if (Array.isArray(object)) {
    for (const [index, item] of (object as unknown[]).entries()) {
      const found = unsendableIn(item, [...path, index], true, ancestors);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    const kind = (object as { constructor?: { name?: unknown } }).constructor?.name;
    return {
      path,
      problem: `${typeof kind === 'string' && kind !== '' ? `a ${kind}` : 'this object'} is not a plain JSON object (it would be sent as {} or only in part)`,
    };
  }
  for (const [name, member] of Object.entries(object)) {
    const found = unsendableIn(member, [...path, name], false, ancestors);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Throws a TrustpointUnsendableValueError naming the first field of a request body that JSON cannot
 * carry as it is, before anything is sent.
 */
export function assertSendableJson(body: unknown, root = 'body'): void {
  let found: Unsendable | undefined;
  try {
    found = unsendableIn(body, [root], false, new Set());
  } catch (error) {
    if (error instanceof RangeError) {
      throw new TrustpointUnsendableValueError(root, 'the value is nested too deeply to send');
    }
    throw error;
  }
  if (found !== undefined) {
    throw new TrustpointUnsendableValueError(formatDisclosurePath(found.path), found.problem);
  }
}

/** How the clients turn a JSON body into the request's text: checked, then `JSON.stringify`. */
export function sendableJsonText(body: unknown): string {
  assertSendableJson(body);
  return JSON.stringify(body);
}
