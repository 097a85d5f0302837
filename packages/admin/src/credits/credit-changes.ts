import {
  changeCredits,
  CreditBalanceOverflowError,
  recordAudit,
  type ChangeContext,
  type CreditMovement,
} from '@trustpoint/db';
import type { Knex } from 'knex';
import { noSuchUser, refused } from '../admin-errors.js';

/** An admin's change of a balance: credits added, or the balance set; with the reason given. */
export type CreditChangeRequest =
  { grant: number; reason: string | null } | { balance: number; reason: string | null };

/**
 * Grants credits or sets the balance, writing the ledger movement and the audit entry
 * (`credits.grant`, `credits.set`) in one transaction; 400 when the balance would overflow, 404
 * for an unknown user.
 */
export async function changeUserCredits(
  knex: Knex,
  userId: string,
  change: CreditChangeRequest,
  context: ChangeContext,
): Promise<CreditMovement> {
  const kind = 'grant' in change ? 'grant' : 'set';
  return knex.transaction(async (trx) => {
    let made;
    try {
      made = await changeCredits(trx, userId, { ...change, ...context });
    } catch (error) {
      if (!(error instanceof CreditBalanceOverflowError)) throw error;
      throw refused(
        kind === 'grant' ? 'body.amount' : 'body.balance',
        `Would take the balance above ${String(error.maxBalance)}, the most it can hold`,
      );
    }
    if (made === undefined) throw noSuchUser(userId);
    await recordAudit(trx, [
      {
        ...context,
        action: `credits.${kind}`,
        target: `user:${userId}`,
        changes: {
          amount: made.amount,
          balanceAfter: made.balanceAfter,
          ...(made.reason === null ? {} : { reason: made.reason }),
        },
      },
    ]);
    return made;
  });
}
