import type { Command } from 'commander';
import { table, type Output } from '../output.js';
import { movementPurpose } from '../account/credit-movement-purpose.js';
import type { AdminSchemas } from './admin-client.js';
import type { AdminAction } from './admin-action.js';
import { nonNegativeInteger, pageOptions, positiveInteger, type PageOptions } from './options.js';

const balanceOutput = (result: AdminSchemas['CreditChange']): Output => ({
  data: result,
  text: `${result.userId} now has ${String(result.balance)} credits (${result.movement.amount >= 0 ? '+' : ''}${String(result.movement.amount)})`,
});

export function creditsCommands(admin: Command, action: AdminAction): void {
  const credits = admin
    .command('credits')
    .description("a user's credits: one per certificate, signature or evidence");

  pageOptions(
    credits
      .command('history')
      .description('the balance and its movements, newest first')
      .argument('<userId>'),
  ).action(
    action<[string], PageOptions>(async (client, [userId], options) => {
      const history = await client.answer(
        client.api.GET('/users/{id}/credits', {
          params: {
            path: { id: userId },
            query: { offset: options.offset, limit: options.limit },
          },
        }),
      );
      return {
        data: history,
        text: `${history.userId}: ${String(history.balance)} credits\n${table(history.movements, [
          { title: 'id', value: (m) => m.id },
          { title: 'at', value: (m) => m.at },
          { title: 'kind', value: (m) => m.kind },
          { title: 'amount', value: (m) => (m.amount > 0 ? `+${String(m.amount)}` : m.amount) },
          { title: 'balance', value: (m) => m.balanceAfter },
          { title: 'by', value: (m) => m.actor },
          { title: 'for', value: (m) => movementPurpose(m) },
        ])}`,
      };
    }),
  );

  credits
    .command('grant')
    .description('add credits to the balance')
    .argument('<userId>')
    .argument('<amount>', 'credits to add', positiveInteger)
    .option('--reason <text>', 'kept in the credit history')
    .action(
      action<[string, number], { reason?: string }>(async (client, [userId, amount], options) =>
        balanceOutput(
          await client.answer(
            client.api.POST('/users/{id}/credits/grant', {
              params: { path: { id: userId } },
              body: { amount, reason: options.reason },
            }),
          ),
        ),
      ),
    );

  credits
    .command('set')
    .description('set the balance')
    .argument('<userId>')
    .argument('<balance>', 'the new balance', nonNegativeInteger)
    .option('--reason <text>', 'kept in the credit history')
    .action(
      action<[string, number], { reason?: string }>(async (client, [userId, balance], options) =>
        balanceOutput(
          await client.answer(
            client.api.POST('/users/{id}/credits/set', {
              params: { path: { id: userId } },
              body: { balance, reason: options.reason },
            }),
          ),
        ),
      ),
    );
}
