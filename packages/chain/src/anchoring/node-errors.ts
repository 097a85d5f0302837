/** Attempts a node that refuses connections is taken to be starting, logged at info. */
export const NODE_STARTING_ATTEMPTS = 10;

/** The node could not be reached at all (refused, reset, no such host), as opposed to an answer. */
export function isNodeUnreachable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ENOTFOUND') return true;
    if (/fetch failed|ECONNREFUSED/.test(cause.message)) return true;
    cause = cause.cause;
  }
  return false;
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const short = (error as { shortMessage?: string }).shortMessage;
    const info = (error as { info?: { error?: { message?: string } } }).info?.error?.message;
    return [short ?? error.message, info].filter(Boolean).join(': ');
  }
  return String(error);
}
