import type { Command } from 'commander';
import type { AdminAction } from './admin-action.js';
import { positiveInteger } from './options.js';

export function tokensCommands(admin: Command, action: AdminAction): void {
  const tokens = admin.command('tokens').description('short-lived access tokens');

  tokens
    .command('create')
    .description('an access token for a user (printed alone, for `export TOKEN=$(...)`)')
    .argument('<userId>')
    .option(
      '--expires-in <seconds>',
      'lifetime, 60 to 2592000 (the service default: 3600)',
      positiveInteger,
    )
    .action(
      action<[string], { expiresIn?: number }>(async (client, [userId], options) => {
        const token = await client.answer(
          client.api.POST('/users/{id}/tokens', {
            params: { path: { id: userId } },
            body: { expiresInSeconds: options.expiresIn },
          }),
        );
        return { data: token, text: token.accessToken };
      }),
    );
}
