import type { Command } from 'commander';
import type { Io } from '../output.js';
import type { AdminAction } from './admin-action.js';
import { AdminClient } from './admin-client.js';
import { apiKeysCommands } from './api-keys-commands.js';
import { auditCommand } from './audit-command.js';
import { resolveConnection, type ConnectionOptions } from './connection.js';
import { creditsCommands } from './credits-commands.js';
import { plansCommands } from './plans-commands.js';
import { tokensCommands } from './tokens-commands.js';
import { usersCommands } from './users-commands.js';

/** `trustpoint admin ...`: the admin API of a running service, the embedded one included. */
export function adminCommand(program: Command, io: Io): void {
  const admin = program
    .command('admin')
    .description(
      'manage users, plans, credits, tokens and API keys, and read the audit log, of a running service',
    )
    .option(
      '--url <url>',
      "the certificate API's origin (env TRUSTPOINT_URL; default http://127.0.0.1:$CERT_API_PORT or :8080)",
    )
    .option(
      '--token <jwt>',
      "an admin's access token (env TRUSTPOINT_TOKEN; default the local admin's, left by a service started here)",
    )
    .option('--data-dir <dir>', 'where a local service keeps its data (env TRUSTPOINT_DATA_DIR)')
    .option('--json', 'print the answer as JSON, for scripts', false);

  const action: AdminAction =
    (handler) =>
    async (...params) => {
      const command = params[params.length - 1] as Command;
      const options = command.optsWithGlobals<ConnectionOptions & { json: boolean }>();
      const client = new AdminClient(await resolveConnection(options, io.env));
      const output = await handler(
        client,
        params.slice(0, -2) as Parameters<typeof handler>[1],
        options as Parameters<typeof handler>[2],
      );
      io.stdout(`${options.json ? JSON.stringify(output.data, null, 2) : output.text}\n`);
    };

  usersCommands(admin, action);
  plansCommands(admin, action);
  creditsCommands(admin, action);
  tokensCommands(admin, action);
  apiKeysCommands(admin, action);
  auditCommand(admin, action);
}
