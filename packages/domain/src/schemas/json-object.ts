import { z } from 'zod';

import type { JsonObject } from '../hashing/canonical-json.js';
import { REQUEST_LIMITS } from '../requests/request-limits.js';
import { textProblem } from './text.js';

type PathSegment = string | number;
type Issue = { message: string; path: PathSegment[] };

/**
 * Problems of a parsed JSON value as a caller's JSON: every string and member name storable text
 * (see `textProblem`), nesting within `REQUEST_LIMITS.jsonMaxDepth`. Stops at the first 20.
 */
function jsonIssues(value: unknown, path: PathSegment[], depth: number, issues: Issue[]): void {
  if (issues.length >= 20) return;
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem !== undefined) issues.push({ message: problem, path });
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) issues.push({ message: 'Expected a finite number', path });
    return;
  }
  if (value === null || typeof value === 'boolean') return;
  if (typeof value !== 'object') {
    issues.push({ message: 'Expected a JSON value', path });
    return;
  }
  if (depth > REQUEST_LIMITS.jsonMaxDepth) {
    issues.push({
      message: `Nested deeper than ${String(REQUEST_LIMITS.jsonMaxDepth)} levels`,
      path,
    });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      jsonIssues(item, [...path, index], depth + 1, issues);
    });
    return;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    issues.push({ message: 'Expected a JSON object', path });
    return;
  }
  for (const [key, member] of Object.entries(value)) {
    const problem = textProblem(key);
    if (problem !== undefined)
      issues.push({ message: `Member name: ${problem}`, path: [...path, key] });
    jsonIssues(member, [...path, key], depth + 1, issues);
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A free-form JSON object (certificate content, asset data, evidence metadata), exactly as the
 * caller sent it: it is validated in place and never copied, because copying member by member onto
 * a plain object would drop a member named `__proto__` (the assignment sets the prototype instead)
 * and the stored and hashed value would no longer be what the caller certified. Members must be
 * JSON values with storable text (no U+0000, no lone surrogates), so the object hashes in canonical
 * form and round-trips through the database.
 */
export const jsonObjectSchema = z
  .custom<JsonObject>()
  // Before the check: the document generator needs the metadata on the schema the check extends.
  .meta({
    id: 'JsonObject',
    type: 'object',
    description: 'A JSON object; its members are any JSON values, kept and hashed exactly as sent',
    example: { orderId: 4711 },
  })
  .check((context) => {
    const { value } = context;
    if (!isObject(value)) {
      context.issues.push({
        code: 'invalid_type',
        expected: 'object',
        message: 'Expected a JSON object',
        input: value,
      });
      return;
    }
    const issues: Issue[] = [];
    jsonIssues(value, [], 1, issues);
    for (const issue of issues) {
      context.issues.push({ code: 'custom', input: value, ...issue });
    }
  });

/** Why an integer outside the safe range is refused in what a caller sends. */
export const UNSAFE_INTEGER_PROBLEM =
  'Integers beyond 2^53 - 1 lose digits in JSON (I-JSON, RFC 7493): send it as a string';

/**
 * Where an integer lies beyond 2^53 - 1 in a JSON value (as the JSON parser rounded it). Not below
 * `REQUEST_LIMITS.jsonMaxDepth`, which `jsonObjectSchema` refuses on its own.
 */
function unsafeIntegerPaths(
  value: unknown,
  path: PathSegment[],
  depth: number,
  paths: PathSegment[][],
): void {
  if (paths.length >= 20) return;
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) paths.push(path);
    return;
  }
  if (typeof value !== 'object' || value === null || depth > REQUEST_LIMITS.jsonMaxDepth) return;
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      unsafeIntegerPaths(item, [...path, index], depth + 1, paths);
    });
    return;
  }
  for (const [key, member] of Object.entries(value)) {
    unsafeIntegerPaths(member, [...path, key], depth + 1, paths);
  }
}

/**
 * A JSON object a caller sends to be certified or registered (certificate content, asset data,
 * evidence metadata): as `jsonObjectSchema`, and no integer beyond 2^53 - 1. JSON.parse rounds
 * such an integer (123456789012345678901234567890 becomes 1.2345678901234568e+29), so what would
 * be hashed, anchored and shown is no longer what the caller sent, nor what the caller's own hash
 * of its JSON covers. Only at creation: certificates already issued are shown and verified as
 * they are.
 */
export const sentJsonObjectSchema = jsonObjectSchema
  .check((context) => {
    if (!isObject(context.value)) return;
    const paths: PathSegment[][] = [];
    unsafeIntegerPaths(context.value, [], 1, paths);
    for (const path of paths) {
      context.issues.push({
        code: 'custom',
        input: context.value,
        message: UNSAFE_INTEGER_PROBLEM,
        path,
      });
    }
  })
  .meta({
    id: 'SentJsonObject',
    type: 'object',
    description:
      'A JSON object; its members are any JSON values, kept and hashed exactly as sent. Integers beyond ±(2^53 − 1) are refused (400): JSON parsers round them, so send them as strings',
    example: { orderId: 4711 },
  });
