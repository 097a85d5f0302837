import type { Command } from 'commander';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import { migrateDatabase } from '@trustpoint/launcher/migrate-database';
import { commandFailure } from './start-or-refuse.js';
import type { Io } from './output.js';

export function migrateCommand(program: Command, io: Io): void {
  program
    .command('migrate')
    .description(
      'apply pending database migrations to DATABASE_URL, or to the embedded database of the data directory when no service holds it; safe to run from several processes at once',
    )
    .option('--json', 'print the outcome as JSON')
    .action(async (options: { json?: boolean }) => {
      let outcome;
      try {
        outcome = await migrateDatabase(readLauncherConfig(io.env));
      } catch (error) {
        throw commandFailure(error);
      }
      if (options.json) {
        io.stdout(`${JSON.stringify(outcome)}\n`);
        return;
      }
      const where = outcome.backend === 'postgres' ? 'DATABASE_URL' : 'the embedded database';
      if (outcome.newer.length > 0) {
        io.stdout(
          `${where} was migrated by a newer version of Trustpoint (${outcome.newer.join(', ')}, unknown to this one): nothing to apply; this version runs on it, and the newer version's trustpoint migrate is the one to use\n`,
        );
        return;
      }
      io.stdout(
        outcome.applied.length === 0
          ? `${where} is up to date: no migration to apply\n`
          : `${where}: applied ${outcome.applied.join(', ')}\n`,
      );
    });
}
