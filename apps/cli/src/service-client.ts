import {
  createTrustpointClient,
  TrustpointApiError,
  TrustpointConnectionError,
  TrustpointRefusedAnswerError,
  type TrustpointClient,
} from '@trustpoint/sdk';
import { CliError } from './cli-error.js';
import { EXIT, exitCodeOfStatus } from './exit-codes.js';
import { unreachableError } from './service-timeout.js';

/** The SDK's client of a service, for the commands that call its APIs. */
export function serviceClient(options: {
  certUrl?: string;
  trackUrl?: string;
  token?: string | undefined;
  /**
   * How long each call may take, its retries included (`serviceTimeoutMs`); undefined: no limit,
   * so that a slow upload of a large file does not count as unreachable.
   */
  timeoutMs: number | undefined;
}): TrustpointClient {
  return createTrustpointClient({
    ...(options.certUrl === undefined ? {} : { certUrl: options.certUrl }),
    ...(options.trackUrl === undefined ? {} : { trackUrl: options.trackUrl }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.timeoutMs === undefined ? {} : { retry: { timeoutMs: options.timeoutMs } }),
  });
}

/**
 * What `trustpoint` exits with for an error of the SDK: the service's answer by its status (404:
 * 4, ...) with its error body for `--json`; no answer, or none in time, as unreachable. A record answered naming a
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
    throw unreachableError(new URL(error.url).origin, error.cause);
  }
  throw error;
}
