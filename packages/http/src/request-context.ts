import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `next` (the rest of the request's handling) with the request's id in scope. */
export function runInRequest(requestId: string, next: () => void): void {
  storage.run({ requestId }, next);
}

/** The id of the request being handled (`X-Request-Id`), or undefined outside any request. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * pino's `mixin`: every line logged while a request is handled carries its `reqId`, whichever
 * logger writes it (a use case, the error handler, a library). Give it where the process makes its
 * logger: `pino({ mixin: requestLogMixin })`.
 */
export function requestLogMixin(): { reqId?: string } {
  const requestId = currentRequestId();
  return requestId === undefined ? {} : { reqId: requestId };
}
