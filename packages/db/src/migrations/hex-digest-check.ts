/**
 * SQL predicate: the column holds a SHA-256 digest as 64 lowercase hex characters, the only form
 * the anchoring engine can turn into an on-chain word. Shipped migrations depend on its output:
 * change it only through a new function.
 */
export function hexDigestCheck(column: string): string {
  return `${column} ~ '^[0-9a-f]{64}$'`;
}

/**
 * The predicate of `hexDigestCheck`, true and false for the same values, about eight times
 * cheaper: PostgreSQL's regular expressions unroll a bounded repeat (`{64}`) into 64 states, and
 * matching one took 6.5 us on the embedded engine against 0.8 us for the length and an unbounded
 * class. Five such checks ran for every certificate created, a sixth of its statement's time
 * (migration 0027). `prefix` is a literal the value starts with (`0x`).
 */
export function hexDigestCheckUnrolled(column: string, prefix = ''): string {
  return `(length(${column}) = ${String(64 + prefix.length)} and ${column} ~ '^${prefix}[0-9a-f]*$')`;
}
