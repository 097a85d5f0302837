import {
  createTrustpointClient,
  TrustpointApiError,
  TrustpointConnectionError,
  TrustpointRefusedAnswerError,
  type TrustpointClient,
} from '@trustpoint/sdk';
import { CliError } from './cli-error.js';
import { EXIT, exitCodeOfStatus } from './exit-codes.js';

/** How long a request may take before the service counts as unreachable. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The SDK's client of a service, for the commands that call its APIs. */
export function serviceClient(options: {
  certUrl?: string;
  trackUrl?: string;
  token?: string | undefined;
  /** Without it a slow upload of a large file would count as unreachable. */
  timeout?: boolean;
}): TrustpointClient {
  return createTrustpointClient({
    ...(options.certUrl === undefined ? {} : { certUrl: options.certUrl }),
    ...(options.trackUrl === undefined ? {} : { trackUrl: options.trackUrl }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.timeout === false
      ? {}
      : {
          fetch: (request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
        }),
  });
}

/**
 * What `trustpoint` exits with for an error of the SDK: the service's answer by its status (404:
 * 4, ...) with its error body for `--json`; no answer as unreachable. A record answered naming a
 * member twice is refused as the same bytes given as a file are (2); another record than the one
 * asked for is a mismatch (7). Anything else is rethrown.
 */
export function cliErrorOf(
  error: unknown,
  what: string,
  /** What to do next, per status, for a person reading the message. */
  hints: Readonly<Record<number, string>> = {},
): never {
  if (error instanceof TrustpointApiError) {
    const hint = hints[error.status];
    throw new CliError(
      `the service answered ${String(error.status)} for ${what}: ${error.message}${hint === undefined ? '' : `; ${hint}`}`,
      exitCodeOfStatus(error.status),
      error.body,
    );
  }
  if (error instanceof TrustpointRefusedAnswerError) {
    switch (error.reason) {
      case 'duplicateMember':
        throw new CliError(`${what}: ${error.message}`, EXIT.usage);
      case 'otherRecord':
        throw new CliError(`${error.message}, nothing is verified`, EXIT.mismatch);
      default:
        throw new CliError(`${what}: ${error.message}`, EXIT.failure);
    }
  }
  if (error instanceof TrustpointConnectionError) {
    const reason = error.cause instanceof Error ? error.cause.message : String(error.cause);
    throw new CliError(
      `cannot reach the service at ${new URL(error.url).origin}: ${reason}`,
      EXIT.unreachable,
    );
  }
  throw error;
}
