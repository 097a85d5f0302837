import type { Command } from 'commander';
import { resolveConnection, type ConnectionOptions } from '../admin/connection.js';
import { usageError } from '../cli-error.js';
import { record, table, type Io } from '../output.js';
import { cliErrorOf, serviceClient } from '../service-client.js';
import { movementPurpose } from './credit-movement-purpose.js';

interface AccountOptions extends ConnectionOptions {
  movements: string;
  json: boolean;
}

/**
 * `trustpoint account`: the caller's own account, as the certificate API shows it to the holder
 * of a token or API key: credits, plan and networks, the credential's scopes and expiry, and the
 * latest movements of the balance.
 */
export function accountCommand(program: Command, io: Io): void {
  program
    .command('account')
    .description(
      'your account on the service: credits, plan and its networks, what your key or token may do and until when, the latest credit movements',
    )
    .option('--movements <n>', 'credit movements to show, newest first (0 for none)', '10')
    .option(
      '--url <url>',
      "the certificate API's origin (env TRUSTPOINT_URL; default http://127.0.0.1:$CERT_API_PORT or :8080)",
    )
    .option(
      '--token <jwt>',
      "your access token or API key (env TRUSTPOINT_TOKEN; default the local user's, left by a service started here)",
    )
    .option('--data-dir <dir>', 'where a local service keeps its data (env TRUSTPOINT_DATA_DIR)')
    .option('--json', 'print the account and movements as JSON, for scripts', false)
    .addHelpText(
      'after',
      '\nNeeds the `read` scope. Exit codes: 0 shown, 3 the token refused or without the read scope, 6 the service unreachable.',
    )
    .action(async (options: AccountOptions) => {
      const limit = Number(options.movements);
      if (!Number.isInteger(limit) || limit < 0 || limit > 100) {
        throw usageError('--movements must be an integer from 0 to 100');
      }
      const connection = await resolveConnection(options, io.env);
      const { cert } = serviceClient({
        certUrl: `${connection.url.replace(/\/+$/, '')}/cert/v2`,
        token: connection.token,
        timeoutMs: connection.timeoutMs,
      });
      let account;
      let movements;
      try {
        account = await cert.getAccount();
        movements = limit === 0 ? undefined : await cert.listCreditMovements({ limit });
      } catch (error) {
        cliErrorOf(error, 'the account', {
          403: 'the key or token lacks the read scope: use one with it',
        });
      }
      if (options.json) {
        io.stdout(
          `${JSON.stringify({ account, movements: movements?.movements ?? [] }, null, 2)}\n`,
        );
        return;
      }
      io.stdout(
        `${record([
          ['user', `${account.userId} (${account.userDid})`],
          ['name', account.displayName],
          ['credits', account.credits],
          ['plan', `${account.plan.name} (${account.plan.id})`],
          ['networks', account.plan.networkIds],
          ['qualified', account.qualified],
          ['scopes', account.credential.scopes.join(' ')],
          ['API key', account.credential.apiKeyId],
          ['credential expires', account.credential.expiresAt ?? 'never'],
        ])}\n`,
      );
      if (movements !== undefined) {
        io.stdout(
          `Credit movements (${String(movements.movements.length)} of ${String(movements.pagination.total)}):\n${table(
            movements.movements,
            [
              { title: 'id', value: (movement) => movement.id },
              { title: 'at', value: (movement) => movement.at },
              { title: 'kind', value: (movement) => movement.kind },
              { title: 'amount', value: (movement) => movement.amount },
              { title: 'balance', value: (movement) => movement.balanceAfter },
              { title: 'for', value: (movement) => movementPurpose(movement) },
            ],
          )}\n`,
        );
      }
    });
}
