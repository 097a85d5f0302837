import { RoleConfigError } from '@trustpoint/launcher/launcher';
import { CliError } from './cli-error.js';
import { EXIT } from './exit-codes.js';

/**
 * Starts a role or the whole service: a configuration it cannot start with (a setting that is not
 * usable, no DATABASE_URL for a role, ...) is refused in one line naming what to change (exit 2);
 * anything else keeps its stack (exit 1).
 */
export async function startOrRefuse<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof RoleConfigError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}

/**
 * A database command's failure (`migrate`, `init-admin`) as the CLI says it: its message alone,
 * exit 2 for a configuration that cannot work (DATABASE_URL), as a start refuses it; exit 1 else.
 */
export function commandFailure(error: unknown): CliError {
  return new CliError(
    (error as Error).message,
    error instanceof RoleConfigError ? EXIT.usage : EXIT.failure,
  );
}
