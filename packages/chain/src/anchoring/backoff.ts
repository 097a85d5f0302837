/** Exponential backoff with full jitter: the delay before retry number `attempt` (1-based). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 20));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
