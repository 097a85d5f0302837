const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * A timestamp as the contracts' uint256. A number must be a safe integer: beyond 2^53 a number
 * may already have been rounded, and the key would then silently point at another record.
 */
export function toUint256(value: number | bigint, name: string): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new RangeError(`${name} must be a safe integer, got ${value}`);
  }
  const integer = BigInt(value);
  if (integer < 0n || integer > MAX_UINT256) {
    throw new RangeError(`${name} must fit an unsigned 256-bit integer, got ${integer}`);
  }
  return integer;
}
