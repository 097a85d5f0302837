/**
 * SQL predicate: the column holds a SHA-256 digest as 64 lowercase hex characters, the only form
 * the anchoring engine can turn into an on-chain word. Shipped migrations depend on its output:
 * change it only through a new function.
 */
export function hexDigestCheck(column: string): string {
  return `${column} ~ '^[0-9a-f]{64}$'`;
}
