import type { Queryable } from '../queryable.js';
import type { ChangeContext } from './change-context.js';
import { CreditBalanceOverflowError } from './credit-balance-overflow-error.js';

export const CREDIT_MOVEMENT_KINDS = ['initial', 'grant', 'set', 'refund'] as const;

/**
 * Why a balance changed: the balance a user started with (or had when the ledger began), an
 * administrator's grant or set, a credit given back for something that was never delivered.
 */
export type CreditMovementKind = (typeof CREDIT_MOVEMENT_KINDS)[number];

export interface NewCreditMovement extends ChangeContext {
  userId: string;
  kind: CreditMovementKind;
  /** The signed change of the balance. */
  amount: number;
  balanceAfter: number;
  reason?: string | null;
}

export interface CreditMovement extends NewCreditMovement {
  id: number;
  reason: string | null;
  at: Date;
}

interface CreditMovementRow {
  id: number;
  user_id: string;
  kind: CreditMovementKind;
  amount: number;
  balance_after: number;
  actor_id: string | null;
  reason: string | null;
  request_id: string | null;
  at: Date;
}

const COLUMNS = [
  'id',
  'user_id',
  'kind',
  'amount',
  'balance_after',
  'actor_id',
  'reason',
  'request_id',
  'at',
] as const;

function fromRow(row: CreditMovementRow): CreditMovement {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    amount: row.amount,
    balanceAfter: row.balance_after,
    actorId: row.actor_id,
    reason: row.reason,
    requestId: row.request_id,
    at: row.at,
  };
}

/** Appends movements to the ledger in one statement; pass the transaction of the change. */
export async function recordCreditMovements(
  trx: Queryable,
  movements: readonly NewCreditMovement[],
): Promise<CreditMovement[]> {
  if (movements.length === 0) return [];
  const rows = await trx('credit_movements')
    .insert(
      movements.map((movement) => ({
        user_id: movement.userId,
        kind: movement.kind,
        amount: movement.amount,
        balance_after: movement.balanceAfter,
        actor_id: movement.actorId,
        reason: movement.reason ?? null,
        request_id: movement.requestId,
      })),
    )
    .returning<CreditMovementRow[]>([...COLUMNS]);
  return rows.map(fromRow);
}

export interface CreditChange extends ChangeContext {
  reason?: string | null;
}

/**
 * An administrator's change of a user's balance: adds `amount` (a grant) or sets it to `balance`
 * (a set), and records the movement, in one transaction. Undefined when the user has no balance;
 * `CreditBalanceOverflowError` when the balance would pass `Number.MAX_SAFE_INTEGER`.
 */
export async function changeCredits(
  db: Queryable,
  userId: string,
  change: CreditChange & ({ grant: number } | { balance: number }),
): Promise<CreditMovement | undefined> {
  const target = 'grant' in change ? change.grant : change.balance;
  if (!Number.isSafeInteger(target) || target < ('grant' in change ? 1 : 0)) {
    throw new RangeError(`invalid credit change ${String(target)}`);
  }
  return db.transaction(async (trx) => {
    const current = await trx('credits')
      .where('user_id', userId)
      .forUpdate()
      .first<{ balance: number } | undefined>('balance');
    if (current === undefined) return undefined;
    const balanceAfter = 'grant' in change ? current.balance + change.grant : change.balance;
    if (!Number.isSafeInteger(balanceAfter)) throw new CreditBalanceOverflowError(userId);
    await trx('credits')
      .where('user_id', userId)
      .update({ balance: balanceAfter, updated_at: trx.fn.now() });
    const [movement] = await recordCreditMovements(trx, [
      {
        userId,
        kind: 'grant' in change ? 'grant' : 'set',
        amount: balanceAfter - current.balance,
        balanceAfter,
        actorId: change.actorId,
        requestId: change.requestId,
        reason: change.reason ?? null,
      },
    ]);
    return movement;
  });
}

/**
 * Gives credits back to several users and records each as a `refund` movement of the service, in
 * one statement: for what they paid for and never got (a withdrawn creation, a record the chain
 * refused). Pass the transaction that undoes the paid work, so that each is refunded once.
 */
export async function refundCredits(
  trx: Queryable,
  refunds: ReadonlyMap<string, number>,
  reason: string,
): Promise<void> {
  const entries = [...refunds].filter(([, amount]) => amount > 0);
  if (entries.length === 0) return;
  await trx.raw(
    `with refunded as (
       update credits set balance = credits.balance + refund.amount, updated_at = now()
         from jsonb_to_recordset(?::jsonb) as refund(user_id text, amount int)
        where credits.user_id = refund.user_id
       returning credits.user_id, refund.amount, credits.balance)
     insert into credit_movements (user_id, kind, amount, balance_after, reason)
     select user_id, 'refund', amount, balance, ? from refunded order by user_id`,
    [JSON.stringify(entries.map(([userId, amount]) => ({ user_id: userId, amount }))), reason],
  );
}

export interface CreditMovementListFilter {
  offset: number;
  limit: number;
  /** By time of the movement. */
  order: 'asc' | 'desc';
}

/** A page of the user's ledger and the number of its movements. */
export async function listCreditMovements(
  db: Queryable,
  userId: string,
  filter: CreditMovementListFilter,
): Promise<{ movements: CreditMovement[]; total: number }> {
  const [rows, counted] = await Promise.all([
    db('credit_movements')
      .where('user_id', userId)
      .orderBy('id', filter.order)
      .offset(filter.offset)
      .limit(filter.limit)
      .select<CreditMovementRow[]>([...COLUMNS]),
    db('credit_movements')
      .where('user_id', userId)
      .count<{ count: number | string }[]>({ count: '*' }),
  ]);
  return { movements: rows.map(fromRow), total: Number(counted[0]?.count ?? 0) };
}
