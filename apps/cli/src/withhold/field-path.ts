import type { DisclosurePath } from '@trustpoint/verifier';
import { usageError } from '../cli-error.js';

const SIMPLE_NAME = /^[A-Za-z_$][\w$-]*$/;
const INDEX = /^(0|[1-9]\d*)$/;

/**
 * A field path as `--field` takes it: a JSON array of segments (`'["content","a.b",0]'`: member
 * names as strings, array indices as numbers), or a dotted shorthand when every member name is
 * simple (letters, digits, `_`, `$`, `-`, not starting with a digit) and every number an array
 * index (`content.grades.1`). Anything else (a name with a dot, or made of digits) needs the
 * array form, so a path never means two things.
 */
export function parseFieldPath(text: string): DisclosurePath {
  if (text.trimStart().startsWith('[')) {
    let segments: unknown;
    try {
      segments = JSON.parse(text);
    } catch {
      throw usageError(`--field ${text}: not a JSON array of segments`);
    }
    if (
      !Array.isArray(segments) ||
      segments.length === 0 ||
      !segments.every(
        (segment) =>
          typeof segment === 'string' ||
          (typeof segment === 'number' && Number.isSafeInteger(segment) && segment >= 0),
      )
    ) {
      throw usageError(
        `--field ${text}: a path is a non-empty array of member names (strings) and array indices (non-negative integers)`,
      );
    }
    return segments as DisclosurePath;
  }
  const segments = text.split('.');
  return segments.map((segment) => {
    if (INDEX.test(segment)) return Number(segment);
    if (SIMPLE_NAME.test(segment)) return segment;
    throw usageError(
      `--field ${text}: "${segment}" is not a simple name or an index; give the path as a JSON array, e.g. '["content","${segment}"]'`,
    );
  });
}
