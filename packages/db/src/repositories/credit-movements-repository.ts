import type { Queryable } from '../queryable.js';
import type { ChangeContext } from './change-context.js';
import { CreditBalanceOverflowError } from './credit-balance-overflow-error.js';

/**
 * Why a balance changed: the balance a user started with (or had when the ledger began), an
 * administrator's grant or set, a credit given back for something that was never delivered, a
 * credit spent. Spends are not stored here: each is read from the record its creation writes
 * (see `listCreditMovements`).
 */
export const CREDIT_MOVEMENT_KINDS = ['initial', 'grant', 'set', 'refund', 'spend'] as const;
export type CreditMovementKind = (typeof CREDIT_MOVEMENT_KINDS)[number];

/** The kinds stored in `credit_movements`. */
export type StoredCreditMovementKind = Exclude<CreditMovementKind, 'spend'>;

/**
 * The operations that spend one credit of the user who makes them, each recorded by one audit
 * entry (this action, that user as its actor) written in the transaction that spends the credit,
 * after it has locked the balance: the ledger's spends are these entries.
 */
export const CREDIT_SPENDING_ACTIONS = [
  'certificate.create',
  'certificate.sign',
  'certificate.reanchor',
  'asset.create',
  'evidence.add',
] as const;
export type CreditSpendingAction = (typeof CREDIT_SPENDING_ACTIONS)[number];

/** What a credit was spent on: the operation and what it made or changed. */
export interface CreditSpendPurpose {
  operation: CreditSpendingAction;
  /** The certificate, for `certificate.*`. */
  certId: string | null;
  /** The asset, for `asset.create` and `evidence.add`. */
  trackId: string | null;
  /** The evidence's hash (its id at `GET /evidences/{id}`), for `evidence.add`. */
  evidenceHash: string | null;
  /**
   * The timestamp of the record the credit anchors, when it is not the certificate's own: the
   * trustpoint of a signature or re-anchoring (ms), the evidence of an asset or evidence (s).
   */
  timestamp: number | null;
}

export interface NewCreditMovement extends ChangeContext {
  userId: string;
  kind: StoredCreditMovementKind;
  /** The signed change of the balance. */
  amount: number;
  balanceAfter: number;
  reason?: string | null;
}

export interface CreditMovement extends ChangeContext {
  /** Unique among every user's movements and spends (a spend's is its audit entry's). */
  id: number;
  userId: string;
  kind: CreditMovementKind;
  amount: number;
  balanceAfter: number;
  reason: string | null;
  at: Date;
  /** A spend: what the credit paid for; a refund: what it gave back (when known). */
  spentOn: CreditSpendPurpose | null;
  /** A refund: the id of the spend it gives back (null for refunds from before spends were listed). */
  refundOf: number | null;
}

/** A row of `credit_movements`, as the ledger reads it. */
export interface CreditMovementRow {
  id: number;
  user_id: string;
  kind: StoredCreditMovementKind;
  amount: number;
  balance_after: number;
  actor_id: string | null;
  reason: string | null;
  request_id: string | null;
  at: Date;
  refund_of: number | null;
}

export const CREDIT_MOVEMENT_COLUMNS = [
  'id',
  'user_id',
  'kind',
  'amount',
  'balance_after',
  'actor_id',
  'reason',
  'request_id',
  'at',
  'refund_of',
] as const;

/** A stored movement; `spentOn` is the refunded spend's purpose, read by the caller. */
export function creditMovementOf(
  row: CreditMovementRow,
  spentOn: CreditSpendPurpose | null = null,
): CreditMovement {
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
    spentOn,
    refundOf: row.refund_of,
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
    .returning<CreditMovementRow[]>([...CREDIT_MOVEMENT_COLUMNS]);
  return rows.map((row) => creditMovementOf(row));
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
