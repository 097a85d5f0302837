/**
 * Reads a PostgreSQL `int8` (bigint, `count(*)`) as a JavaScript number.
 *
 * Every int8 we store (millisecond timestamps, balances, nonces, sizes, ids) fits in 2^53, so a
 * number is the convenient type. A value that does not fit fails the query instead of being
 * silently rounded.
 */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`int8 value ${text} is outside the safe integer range of JavaScript`);
  }
  return value;
}
