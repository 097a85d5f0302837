import type { Command } from 'commander';
import { serveAll } from '@trustpoint/launcher/serve-all';

export function startCommand(program: Command): void {
  program
    .command('start')
    .description(
      'run the whole service in this process: the embedded chain and database by default (what `npm start` runs); Ctrl-C stops it',
    )
    .action(async () => {
      await serveAll();
    });
}
