import type { Command } from 'commander';
import { table, type Output } from '../output.js';
import { movementPurpose } from '../account/credit-movement-purpose.js';
import type { AdminAction } from './admin-command.js';
import type { CreditMovement, Pagination } from './admin-types.js';
import { nonNegativeInteger, pageOptions, positiveInteger, type PageOptions } from './options.js';

interface Balance {
  userId: string;
  balance: number;
  movement: CreditMovement;
}

const balanceOutput = (result: Balance): Output => ({
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
      const history = await client.get<{
        userId: string;
        balance: number;
        movements: CreditMovement[];
        pagination: Pagination;
      }>(`/users/${encodeURIComponent(userId)}/credits`, {
        offset: options.offset,
        limit: options.limit,
      });
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
          await client.post<Balance>(`/users/${encodeURIComponent(userId)}/credits/grant`, {
            amount,
            reason: options.reason,
          }),
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
          await client.post<Balance>(`/users/${encodeURIComponent(userId)}/credits/set`, {
            balance,
            reason: options.reason,
          }),
        ),
      ),
    );
}
