import { InvalidArgumentError, type Command } from 'commander';

function integer(value: string, minimum: number): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('not a whole number.');
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < minimum) {
    throw new InvalidArgumentError(`must be a whole number of at least ${String(minimum)}.`);
  }
  return parsed;
}

export const nonNegativeInteger = (value: string) => integer(value, 0);
export const positiveInteger = (value: string) => integer(value, 1);

export interface PageOptions {
  offset?: number;
  limit?: number;
}

/** `--offset` and `--limit` of a listing; the service's defaults when absent. */
export function pageOptions(command: Command): Command {
  return command
    .option('--offset <n>', 'skip this many', nonNegativeInteger)
    .option('--limit <n>', 'at most this many (the service caps it)', positiveInteger);
}
