/**
 * Sends one JSON-RPC body to the nodes a verifier trusts, one after the other, until one answers
 * with something the caller can read. Only `fetch` is used, so it runs in a browser as in Node.
 */

export interface NodeAttempt {
  url: string;
  /** Why this node's answer was not used. */
  error: string;
}

export type NodeAnswer<T> =
  | { answered: true; url: string; value: T; attempts: NodeAttempt[] }
  | { answered: false; attempts: NodeAttempt[] };

export interface JsonRpcOptions {
  /** Per node; default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A node's reply the caller refuses (e.g. not an eth_call answer): the next node is asked. */
export class UnusableReplyError extends Error {
  override readonly name = 'UnusableReplyError';
}

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
};

/**
 * POSTs `body` to each of `urls` in turn; `read` turns a JSON reply into the caller's value and
 * throws when the reply is unusable, in which case the next URL is tried. Transport failures,
 * timeouts, HTTP errors and non-JSON replies also move on to the next URL.
 */
export async function askNodes<T>(
  urls: readonly string[],
  body: unknown,
  read: (reply: unknown) => T,
  options: JsonRpcOptions = {},
): Promise<NodeAnswer<T>> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const attempts: NodeAttempt[] = [];
  for (const url of urls) {
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const reply: unknown = await response.json();
      return { answered: true, url, value: read(reply), attempts };
    } catch (error) {
      attempts.push({ url, error: describe(error) });
    }
  }
  return { answered: false, attempts };
}
