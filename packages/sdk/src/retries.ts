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
  /**
   * The longest one call may take, every attempt and wait between them included (none by
   * default): past it the attempt in flight is aborted and the call fails with a `TimeoutError`
   * (a DOMException saying how long it waited), which the client throws as the cause of a
   * `TrustpointConnectionError`. A silent service then costs this long, not each attempt's own wait.
   */
  timeoutMs?: number;
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
    if (options.timeoutMs === undefined) return sendWithRetries(request);
    const deadline = deadlineSignal(options.timeoutMs);
    return sendWithRetries(request, AbortSignal.any([request.signal, deadline]));
  };

  async function sendWithRetries(request: Request, signal?: AbortSignal): Promise<Response> {
    const creating = request.method === 'POST' || request.method === 'PATCH';
    if (creating && options.idempotencyKeys !== false && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
    }
    const attempts = !creating || request.headers.has('idempotency-key') ? retries + 1 : 1;
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= attempts;
      // Each attempt sends a copy: a body can be read once.
      const copy = last ? request : request.clone();
      const sent = signal === undefined ? copy : new Request(copy, { signal });
      let response: Response;
      try {
        response = await send(sent);
      } catch (error) {
        if (last || signal?.aborted === true) throw signal?.reason ?? error;
        await sleep(backoff(baseDelayMs, attempt), signal);
        continue;
      }
      if (last || !worthRetrying(response)) return response;
      await response.body?.cancel();
      await sleep(retryAfterMs(response) ?? backoff(baseDelayMs, attempt), signal);
    }
  }
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

/**
 * A signal that aborts `ms` from now with a `TimeoutError` saying how long it waited. Left to run
 * (unref'd where timers can be) rather than cleared with the answer: reading the answer's body is
 * part of the call, and a service that stops in the middle of it is as silent.
 */
function deadlineSignal(ms: number): AbortSignal {
  const deadline = new AbortController();
  const timer: unknown = setTimeout(() => {
    deadline.abort(new DOMException(`no answer within ${String(ms / 1_000)} s`, 'TimeoutError'));
  }, ms);
  (timer as { unref?: () => void }).unref?.();
  return deadline.signal;
}

/** Waits `ms`, or less: rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
