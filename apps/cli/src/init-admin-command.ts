import type { Command } from 'commander';
import { bootstrapAdmin } from '@trustpoint/launcher/bootstrap-admin';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import { commandFailure } from './start-or-refuse.js';
import type { Io } from './output.js';
import { readNetworksFile } from './verify/rpc-option.js';

interface InitAdminOptions {
  id: string;
  name: string;
  json?: boolean;
}

/**
 * The network ids to suggest for a first plan: those of the service's networks file, else the
 * embedded chain's. A file that cannot be read here is named, not guessed at (the roles refuse
 * it at start with its own message).
 */
async function suggestedNetworks(networksFile: string | undefined): Promise<string> {
  if (networksFile === undefined) return '31337';
  const networks = await readNetworksFile(networksFile).catch(() => []);
  if (networks.length > 0) return networks.map(({ networkId }) => networkId).join(',');
  return '<the network ids of TRUSTPOINT_NETWORKS_FILE>';
}

/**
 * `trustpoint init-admin`: the first administrator of a database the `serve` roles use (where
 * nothing creates the local one), and its API key, printed once. Run it after `trustpoint
 * migrate`; docker-compose.yml runs it as its `init-admin` step. With an administrator already
 * there it changes nothing and says so (exit 0, so it may run at every `docker compose up`).
 */
export function initAdminCommand(program: Command, io: Io): void {
  program
    .command('init-admin')
    .description(
      'create the first administrator of DATABASE_URL (or of the embedded database) and print its API key, once; does nothing when an administrator exists',
    )
    .option('--id <id>', "the administrator's user id", 'admin')
    .option('--name <name>', "the administrator's display name", 'Administrator')
    .option('--json', 'print the outcome as JSON')
    .action(async (options: InitAdminOptions) => {
      let config;
      let outcome;
      try {
        config = readLauncherConfig(io.env);
        outcome = await bootstrapAdmin(config, {
          userId: options.id,
          displayName: options.name,
        });
      } catch (error) {
        throw commandFailure(error);
      }
      if (options.json) {
        io.stdout(`${JSON.stringify(outcome)}\n`);
        return;
      }
      if (!outcome.created) {
        io.stdout(
          `An administrator already exists (${outcome.existingAdmin}): nothing was created. ` +
            'Use its API key or token (TRUSTPOINT_TOKEN); an administrator makes more with ' +
            '`trustpoint admin keys create <user> --name <what for>`.\n',
        );
        return;
      }
      io.stdout(
        `Created the administrator "${outcome.userId}". Its API key, shown this once (keep it secret):\n\n` +
          `  ${outcome.apiKey}\n\n` +
          'Use it as a bearer token, or with the admin commands:\n' +
          `  export TRUSTPOINT_TOKEN=${outcome.apiKey}\n` +
          `  trustpoint admin plans create customers --name Customers --networks ${await suggestedNetworks(config.networksFile)}\n` +
          '  trustpoint admin users create --help\n',
      );
    });
}
