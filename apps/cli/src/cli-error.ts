import { EXIT, type ExitCode } from './exit-codes.js';

/** A failure the command explains in one line (and, with `--json`, as `body`) and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** What `--json` prints: the service's error body when there is one. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);
