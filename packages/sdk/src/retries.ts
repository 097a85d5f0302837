/** How a client retries: a request that failed on the way, or whose answer says to try again. */
export interface RetryOptions {
  /** Attempts after the first; default 3. 0 turns retries off. */
  retries?: number;
  /** The first wait, doubled each attempt (with jitter) unless the answer says `Retry-After`; default 500 ms. */
  baseDelayMs?: number;
  /**
   * Send an `Idempotency-Key` (a new UUID) with each `POST` and `PATCH` that has none, so that a
   * retry cannot make a second record; default true. Without a key such requests are not retried.
   */
  idempotencyKeys?: boolean;
}

/** Statuses worth trying again with the same request: the service or a proxy failed, not it. */
const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);
const MAX_DELAY_MS = 30_000;

/**
 * A `fetch` that gives creating requests an `Idempotency-Key` and retries, with that same key,
 * after a network error, a 5xx, or a 409/429 that says when to come back (`Retry-After`: the first
 * request with the key is still running, or a rate limit). The service answers a retry of a
 * request it already carried out with the first answer, so a retry never makes a second record
 * nor spends a second credit. GET, PUT and DELETE are retried as they are (safe or idempotent).
 */
export function retryingFetch(
  send: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  return async (request) => {
    const creating = request.method === 'POST' || request.method === 'PATCH';
    if (creating && options.idempotencyKeys !== false && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
    }
    const attempts = !creating || request.headers.has('idempotency-key') ? retries + 1 : 1;
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= attempts;
      // Each attempt sends a copy: a body can be read once.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await send(sent);
      } catch (error) {
        if (last) throw error;
        await sleep(backoff(baseDelayMs, attempt));
        continue;
      }
      if (last || !worthRetrying(response)) return response;
      await response.body?.cancel();
      await sleep(retryAfterMs(response) ?? backoff(baseDelayMs, attempt));
    }
  };
}

function worthRetrying(response: Response): boolean {
  if (RETRYABLE_STATUSES.has(response.status)) return true;
  return (
    (response.status === 409 || response.status === 429) && response.headers.has('retry-after')
  );
}

function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Math.min(Number(value) * 1_000, MAX_DELAY_MS);
}

function backoff(baseDelayMs: number, attempt: number): number {
  const exponential = Math.min(baseDelayMs * 2 ** (attempt - 1), MAX_DELAY_MS);
  return exponential / 2 + Math.random() * (exponential / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
