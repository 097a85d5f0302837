import type { Command } from 'commander';
import { table } from '../output.js';
import type { AdminAction } from './admin-action.js';
import { pageOptions, type PageOptions } from './options.js';

interface AuditOptions extends PageOptions {
  actor?: string;
  action?: string;
  target?: string;
  since?: string;
  until?: string;
}

export function auditCommand(admin: Command, action: AdminAction): void {
  pageOptions(
    admin
      .command('audit')
      .description('the audit log, newest first: who changed what, when, in which request')
      .option('--actor <userId>')
      .option('--action <action>', 'e.g. user.create, credits.grant, certificate.revoke')
      .option('--target <target>', "e.g. user:alice (with alice's API keys), plan:basic")
      .option('--since <time>', 'ISO 8601, e.g. 2026-11-23T00:00:00Z')
      .option('--until <time>', 'ISO 8601'),
  ).action(
    action<[], AuditOptions>(async (client, _args, options) => {
      const { actor, action: name, target, since, until, offset, limit } = options;
      const page = await client.answer(
        client.api.GET('/audit', {
          params: { query: { actor, action: name, target, since, until, offset, limit } },
        }),
      );
      return {
        data: page,
        text: table(page.entries, [
          { title: 'at', value: (entry) => entry.at },
          { title: 'actor', value: (entry) => entry.actor },
          { title: 'action', value: (entry) => entry.action },
          { title: 'target', value: (entry) => entry.target },
          { title: 'changes', value: (entry) => entry.changes },
          { title: 'request', value: (entry) => entry.requestId },
        ]),
      };
    }),
  );
}
