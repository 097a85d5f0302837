import type { Knex } from 'knex';

import type { Queryable } from '../queryable.js';
import { SERVICE_CHANGE, type ChangeContext } from './change-context.js';
import { recordCreditMovements } from './credit-movements-repository.js';

interface CreditsRow {
  user_id: string;
  balance: number;
  updated_at: Date;
}

/**
 * Adds credits to the user's balance (creating it if need be), records the grant in the credit
 * ledger, both or neither, and returns the new balance. Without `context` the grant is the
 * service's own; the admin API grants through `changeCredits`, which names its admin.
 */
export async function grantCredits(
  db: Queryable,
  userId: string,
  amount: number,
  context: ChangeContext & { reason?: string | null } = SERVICE_CHANGE,
): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new RangeError(`credits to grant must be a positive integer, got ${amount}`);
  }
  return db.transaction(async (trx) => {
    const [row] = await trx<CreditsRow>('credits')
      .insert({ user_id: userId, balance: amount })
      .onConflict('user_id')
      .merge({ balance: trx.raw('credits.balance + excluded.balance'), updated_at: trx.fn.now() })
      .returning('balance');
    if (row === undefined) throw new Error(`granting credits to ${userId} returned no row`);
    await recordCreditMovements(trx, [
      { userId, kind: 'grant', amount, balanceAfter: row.balance, ...context },
    ]);
    return row.balance;
  });
}

/**
 * Spends one credit; false when none is left (or the user has no balance).
 *
 * One conditional UPDATE: concurrent spenders queue on the row lock and each re-checks
 * `balance > 0` on the committed value, so the balance never goes below zero and no credit is
 * spent twice. Pass the request's transaction so that a rolled-back request spends nothing.
 */
export async function spendCredit(trx: Queryable, userId: string): Promise<boolean> {
  const rows = await trx<CreditsRow>('credits')
    .where('user_id', userId)
    .andWhere('balance', '>', 0)
    .update({ balance: trx.raw('balance - 1'), updated_at: trx.fn.now() })
    .returning('balance');
  return rows.length === 1;
}

/** The user's balance, or undefined when the user has none. */
export async function findCreditBalance(
  db: Queryable,
  userId: string,
): Promise<number | undefined> {
  const row = await db<CreditsRow>('credits').where('user_id', userId).first('balance');
  return row?.balance;
}

/** The balances of these users as they stand, without locking them (users without one left out). */
export async function findCreditBalances(
  db: Queryable,
  userIds: readonly string[],
): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db<CreditsRow>('credits')
    .whereIn('user_id', [...new Set(userIds)])
    .select('user_id', 'balance');
  return new Map(rows.map((row) => [row.user_id, row.balance]));
}

/**
 * Locks the balances of these users until the transaction ends and returns them (users without a
 * balance are left out). Rows are locked in user id order, so that transactions locking several
 * users' balances at once cannot deadlock one another.
 */
export async function lockCreditBalances(
  trx: Queryable,
  userIds: readonly string[],
): Promise<Map<string, number>> {
  const unique = [...new Set(userIds)].sort();
  if (unique.length === 0) return new Map();
  const rows = await trx<CreditsRow>('credits')
    .whereIn('user_id', unique)
    .orderBy('user_id')
    .forUpdate()
    .select('user_id', 'balance');
  return new Map(rows.map((row) => [row.user_id, row.balance]));
}

/**
 * The `balances_locked` part of a statement that runs on its own: the users' balances locked in
 * user order, as `lockCreditBalances` takes them; its one binding is `userIdsJson`. The statement
 * reads it first, through `BALANCES_HELD` in the filter of what it writes (an init plan), so that
 * it waits for a balance before any row of its own can make another transaction wait for it.
 */
export const BALANCES_LOCKED = `balances_locked as (
       select user_id from credits
        where user_id in (select json_array_elements_text(?::json))
        order by user_id for update
     )`;

/** A filter true once `BALANCES_LOCKED` holds every balance it locks. */
export const BALANCES_HELD = '(select count(*) from balances_locked) >= 0';

/** The users whose balances `BALANCES_LOCKED` locks, as its binding. */
export function userIdsJson(userIds: readonly string[]): string {
  return JSON.stringify([...new Set(userIds)]);
}

/**
 * Takes several credits from several users in one statement. The caller has locked these
 * balances (`lockCreditBalances`) and spends no more than they hold.
 */
export async function spendCredits(
  trx: Queryable,
  spent: ReadonlyMap<string, number>,
): Promise<void> {
  const write = creditsSpending(trx, spent);
  if (write !== undefined) await write;
}

/** `spendCredits` as a write to send with others (`writeTogether`); undefined when none is spent. */
export function creditsSpending(
  trx: Queryable,
  spent: ReadonlyMap<string, number>,
): Knex.Raw | undefined {
  const entries = [...spent].filter(([, amount]) => amount > 0);
  if (entries.length === 0) return undefined;
  return trx.raw(
    `update credits set balance = credits.balance - spent.amount, updated_at = now()
       from jsonb_to_recordset(?::jsonb) as spent(user_id text, amount int)
      where credits.user_id = spent.user_id`,
    [JSON.stringify(entries.map(([userId, amount]) => ({ user_id: userId, amount })))],
  );
}
