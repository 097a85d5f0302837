import type { Command } from 'commander';
import { usageError } from '../cli-error.js';
import { record, table, type Output } from '../output.js';
import type { AdminSchemas } from './admin-client.js';
import type { AdminAction } from './admin-action.js';

const planOutput = (plan: AdminSchemas['Plan']): Output => ({
  data: plan,
  text: record([
    ['id', plan.id],
    ['name', plan.name],
    ['networks', plan.networkIds],
  ]),
});

/** `--networks 31337,11155111`: the network ids, at least one, no blanks. */
function networkIds(value: string): string[] {
  const ids = value.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) throw usageError(`--networks has an empty id: "${value}"`);
  return ids;
}

export function plansCommands(admin: Command, action: AdminAction): void {
  const plans = admin.command('plans').description('plans: the networks their users may use');

  plans
    .command('list')
    .description('every plan, by id')
    .action(
      action<[]>(async (client) => {
        const { plans: all } = await client.answer(client.api.GET('/plans'));
        return {
          data: all,
          text: table(all, [
            { title: 'id', value: (plan) => plan.id },
            { title: 'name', value: (plan) => plan.name },
            { title: 'networks', value: (plan) => plan.networkIds },
          ]),
        };
      }),
    );

  plans
    .command('show')
    .argument('<id>')
    .action(
      action<[string]>(async (client, [id]) =>
        planOutput(
          await client.answer(client.api.GET('/plans/{id}', { params: { path: { id } } })),
        ),
      ),
    );

  plans
    .command('create')
    .description('a plan and the networks it may use (ids the service has configured)')
    .argument('<id>')
    .requiredOption('--name <name>')
    .requiredOption('--networks <ids>', 'comma-separated network ids, e.g. 31337,11155111')
    .action(
      action<[string], { name: string; networks: string }>(async (client, [id], options) =>
        planOutput(
          await client.answer(
            client.api.POST('/plans', {
              body: { id, name: options.name, networkIds: networkIds(options.networks) },
            }),
          ),
        ),
      ),
    );

  plans
    .command('update')
    .description("replace a plan's networks (and its name with --name)")
    .argument('<id>')
    .requiredOption('--networks <ids>', 'comma-separated network ids')
    .option('--name <name>')
    .action(
      action<[string], { name?: string; networks: string }>(async (client, [id], options) =>
        planOutput(
          await client.answer(
            client.api.PUT('/plans/{id}', {
              params: { path: { id } },
              body: { name: options.name, networkIds: networkIds(options.networks) },
            }),
          ),
        ),
      ),
    );
}
