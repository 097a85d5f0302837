import { CliError, usageError } from './cli-error.js';
import { EXIT } from './exit-codes.js';

/** How long the service may take to answer one request, its retries included, unless set. */
export const DEFAULT_SERVICE_TIMEOUT_SECONDS = 30;

/** Said in `--help` and the README: where the wait for the service is set. */
export const SERVICE_TIMEOUT_HELP = `TRUSTPOINT_TIMEOUT_SECONDS (default ${String(DEFAULT_SERVICE_TIMEOUT_SECONDS)}) bounds the wait for the service's answer to each request, retries included: past it the exit code is 6.`;

/**
 * `TRUSTPOINT_TIMEOUT_SECONDS`, in milliseconds: the one deadline of each request to the service,
 * however many times it is tried. A value that is not a positive number is a usage error.
 */
export function serviceTimeoutMs(env: NodeJS.ProcessEnv): number {
  const given = env.TRUSTPOINT_TIMEOUT_SECONDS;
  if (given === undefined || given.trim() === '') return DEFAULT_SERVICE_TIMEOUT_SECONDS * 1_000;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw usageError(
      `TRUSTPOINT_TIMEOUT_SECONDS must be a positive number of seconds, not ${given}`,
    );
  }
  return Math.ceil(seconds * 1_000);
}

/**
 * A signal that aborts `ms` from now with a `TimeoutError` saying how long it waited, as the SDK's
 * `retry.timeoutMs` does: the request's whole deadline, its answer's body included.
 */
export function deadlineSignal(ms: number): AbortSignal {
  const deadline = new AbortController();
  setTimeout(() => {
    deadline.abort(new DOMException(`no answer within ${String(ms / 1_000)} s`, 'TimeoutError'));
  }, ms).unref();
  return deadline.signal;
}

/** The deadline that passed, when a failed request (or what it failed of) is one. */
function timeoutOf(error: unknown): Error | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === 'TimeoutError') return cause;
  }
  return undefined;
}

/**
 * The error of a request that got no answer from the service at `origin`: one whose deadline
 * passed says the service did not answer in time; one that could not be reached (refused, DNS,
 * TLS) says why. Both exit with `EXIT.unreachable`.
 */
export function unreachableError(origin: string, error: unknown): CliError {
  const timeout = timeoutOf(error);
  if (timeout !== undefined) {
    return new CliError(
      `the service at ${origin} did not answer in time: ${timeout.message} (TRUSTPOINT_TIMEOUT_SECONDS sets how long to wait)`,
      EXIT.unreachable,
    );
  }
  const reason = error instanceof Error ? (error.cause ?? error) : error;
  return new CliError(
    `cannot reach the service at ${origin}: ${reason instanceof Error ? reason.message : String(reason)}`,
    EXIT.unreachable,
  );
}
