import { BYTES32_PATTERN } from '../chain/bytes32.js';
import { EVM_ADDRESS_PATTERN } from '../chain/eth-call-request.js';
import type { JsonObject } from '../hashing/canonical-json.js';

/** Thrown when the JSON given to verify is not a certificate, asset or evidence as the APIs return it. */
export class VerifierInputError extends Error {
  override readonly name = 'VerifierInputError';
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * How deep a certificate, asset or evidence JSON may nest. The APIs take content nested within 64
 * levels and add a few of their own around it; the rules recurse, and a copy nested thousands
 * deep would end them with the stack's RangeError instead of an answer.
 */
export const MAX_INPUT_DEPTH = 128;

/**
 * Refuses a JSON value nested deeper than `MAX_INPUT_DEPTH`, walking it without recursion (so the
 * check itself cannot run out of stack).
 */
export function assertNestingWithin(value: unknown, what: string): void {
  const pending: { item: unknown; depth: number }[] = [{ item: value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { item, depth } = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= MAX_INPUT_DEPTH) {
      throw new VerifierInputError(
        `The JSON is nested deeper than ${String(MAX_INPUT_DEPTH)} levels: no ${what} is`,
      );
    }
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      pending.push({ item: child, depth: depth + 1 });
    }
  }
}

/** The APIs answer `{statusCode, message, data}`; a saved answer or its `data` are both accepted. */
export function unwrapEnvelope(json: unknown): unknown {
  if (isObject(json) && typeof json.statusCode === 'number' && 'data' in json) return json.data;
  return json;
}

export function field<T>(
  record: Record<string, unknown>,
  name: string,
  check: (value: unknown) => value is T,
  what: string,
  path: string,
): T {
  const value = record[name];
  if (!check(value)) throw new VerifierInputError(`${path}.${name} must be ${what}`);
  return value;
}

export function optionalField<T>(
  record: Record<string, unknown>,
  name: string,
  check: (value: unknown) => value is T,
  what: string,
  path: string,
): T | undefined {
  return record[name] === undefined ? undefined : field(record, name, check, what, path);
}

export const isString = (value: unknown): value is string => typeof value === 'string';
/** An EVM address as a record names its registry: 0x and 40 hex digits, any case. */
export const isAddress = (value: unknown): value is string =>
  isString(value) && EVM_ADDRESS_PATTERN.test(value);
/** A transaction hash: 0x and 64 hex digits. */
export const isTransactionHash = (value: unknown): value is string =>
  isString(value) && BYTES32_PATTERN.test(value);
export const isSafeInteger = (value: unknown): value is number => Number.isSafeInteger(value);
/** A time on chain (a record's key, a block's time): a safe integer, never negative. */
export const isTimestamp = (value: unknown): value is number => isSafeInteger(value) && value >= 0;
export const isJsonObject = (value: unknown): value is JsonObject => isObject(value);
/** `networkId` is a number in output, decimal text in some inputs. */
export const isNetworkId = (value: unknown): value is number | string =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
  (typeof value === 'string' && /^\d+$/.test(value));
