import { Option, type Command } from 'commander';
import { record, table, type Output } from '../output.js';
import type { AdminSchemas } from './admin-client.js';
import type { AdminAction } from './admin-action.js';
import { nonNegativeInteger, pageOptions, type PageOptions } from './options.js';

type User = AdminSchemas['AdminUser'];

export function userRecord(user: User): string {
  return record([
    ['id', user.id],
    ['name', user.displayName],
    ['role', user.role],
    ['plan', user.planId],
    ['networks', user.networkIds],
    ['qualified', user.qualified ? 'yes' : 'no'],
    ['credits', user.credits],
    ['disabled', user.disabled ? `since ${String(user.disabledAt)}` : 'no'],
    ['created', user.createdAt],
  ]);
}

const userOutput = (user: User): Output => ({ data: user, text: userRecord(user) });

interface UpdateOptions {
  name?: string;
  plan?: string;
  qualified?: boolean;
  role?: User['role'];
}

const roleOption = () =>
  new Option('--role <role>', 'user or admin (admins reach /admin/v1)').choices(['user', 'admin']);

export function usersCommands(admin: Command, action: AdminAction): void {
  const users = admin.command('users').description('the users who may call the APIs');

  pageOptions(
    users
      .command('list')
      .description('list users, by id')
      .addOption(new Option('--disabled', 'only disabled users').conflicts('enabled'))
      .addOption(new Option('--enabled', 'only enabled users')),
  ).action(
    action<[], PageOptions & { disabled?: boolean; enabled?: boolean }>(
      async (client, _args, options) => {
        const page = await client.answer(
          client.api.GET('/users', {
            params: {
              query: {
                offset: options.offset,
                limit: options.limit,
                disabled: options.disabled ? true : options.enabled ? false : undefined,
              },
            },
          }),
        );
        const { offset, total } = page.pagination;
        return {
          data: page,
          text: `${table(page.users, [
            { title: 'id', value: (u) => u.id },
            { title: 'name', value: (u) => u.displayName },
            { title: 'role', value: (u) => u.role },
            { title: 'plan', value: (u) => u.planId },
            { title: 'qualified', value: (u) => (u.qualified ? 'yes' : 'no') },
            { title: 'credits', value: (u) => u.credits },
            { title: 'disabled', value: (u) => (u.disabled ? 'yes' : 'no') },
          ])}\n${String(page.users.length === 0 ? 0 : offset + 1)}-${String(offset + page.users.length)} of ${String(total)}`,
        };
      },
    ),
  );

  users
    .command('create')
    .description('create a user with a plan and, optionally, credits')
    .argument('<id>', 'the user id: the subject (sub) of its tokens')
    .requiredOption('--name <displayName>', 'a name people read')
    .requiredOption('--plan <planId>', 'the plan: which networks the user may anchor on')
    .option('--credits <n>', 'credits to start with', nonNegativeInteger, 0)
    .option('--qualified', 'may request qualified signatures', false)
    .addOption(roleOption().default('user'))
    .action(
      action<
        [string],
        { name: string; plan: string; credits: number; qualified: boolean; role: User['role'] }
      >(async (client, [id], options) =>
        userOutput(
          await client.answer(
            client.api.POST('/users', {
              body: {
                id,
                displayName: options.name,
                planId: options.plan,
                credits: options.credits,
                qualified: options.qualified,
                role: options.role,
              },
            }),
          ),
        ),
      ),
    );

  users
    .command('show')
    .description("a user with its plan's networks and its balance")
    .argument('<id>')
    .action(
      action<[string]>(async (client, [id]) =>
        userOutput(
          await client.answer(client.api.GET('/users/{id}', { params: { path: { id } } })),
        ),
      ),
    );

  users
    .command('update')
    .description('change the name, plan, qualified flag or role')
    .argument('<id>')
    .option('--name <displayName>')
    .option('--plan <planId>')
    .option('--qualified', 'allow qualified signatures')
    .option('--no-qualified', 'no qualified signatures')
    .addOption(roleOption())
    .action(
      action<[string], UpdateOptions>(async (client, [id], options) => {
        const changes = {
          displayName: options.name,
          planId: options.plan,
          qualified: options.qualified,
          role: options.role,
        };
        return userOutput(
          await client.answer(
            client.api.PATCH('/users/{id}', { params: { path: { id } }, body: changes }),
          ),
        );
      }),
    );

  for (const [verb, what] of [
    ['disable', 'refuse its tokens and API keys from the next request on'],
    ['enable', 'accept its tokens and API keys again'],
  ] as const) {
    users
      .command(verb)
      .description(what)
      .argument('<id>')
      .option('--reason <text>', 'kept in the audit log')
      .action(
        action<[string], { reason?: string }>(async (client, [id], options) =>
          userOutput(
            await client.answer(
              client.api.POST(`/users/{id}/${verb}`, {
                params: { path: { id } },
                body: { reason: options.reason },
              }),
            ),
          ),
        ),
      );
  }
}
