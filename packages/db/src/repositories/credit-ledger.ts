import type { Queryable } from '../queryable.js';
import {
  CREDIT_MOVEMENT_COLUMNS,
  CREDIT_SPENDING_ACTIONS,
  creditMovementOf,
  type CreditMovement,
  type CreditMovementRow,
} from './credit-movements-repository.js';
import { spendPurposeOf } from './credit-spends.js';

export interface CreditMovementListFilter {
  offset: number;
  limit: number;
  /** `asc`: the ledger from its start; `desc`: newest first. */
  order: 'asc' | 'desc';
}

/** A stored movement with its place among the spends. */
interface PlacedRow extends CreditMovementRow {
  /** Its 1-based place in the movements alone. */
  ordinal: number;
  /** How many spends come before it in the ledger. */
  spends_before: number;
  /** Its 1-based place in the ledger: `ordinal + spends_before`. */
  position: number;
  refund_action: string | null;
  refund_target: string | null;
  refund_changes: unknown;
}

interface SpendRow {
  id: number;
  action: string;
  target: string;
  changes: unknown;
  request_id: string | null;
  at: Date;
}

/** Reads in one snapshot: every count, movement and spend of one page agree. */
function inOneSnapshot<T>(db: Queryable, read: (trx: Queryable) => Promise<T>): Promise<T> {
  if (db.isTransaction === true) return read(db);
  return db.transaction(read, { isolationLevel: 'repeatable read', readOnly: true });
}

/**
 * A page of the user's credit ledger, and the number of its rows: the stored movements (initial,
 * grants, sets, refunds) and a `spend` of -1 for each credit spent, in the order they changed the
 * balance, each with the balance after it.
 *
 * Spends are read, not stored: each is the audit entry (`CREDIT_SPENDING_ACTIONS`) written in the
 * transaction that spent the credit, so that creating costs nothing more. Every change of a
 * user's balance holds its row lock from before it takes its ids until it commits, so the
 * user's movements in id order, and the spends in id order, are each in balance order. Where the
 * spends fall between the movements follows from the numbers: a movement stores the balance after
 * it, so `(sum of the amounts up to it) - balanceAfter` spends came before it, and those after
 * the last movement are the rest, `(sum of all amounts) - balance`. Reading a page costs one pass
 * over the user's stored movements (which are few: starts, grants, sets, refunds) and an index
 * scan of the spends up to the page, from whichever end is nearer.
 */
export async function listCreditMovements(
  db: Queryable,
  userId: string,
  filter: CreditMovementListFilter,
): Promise<{ movements: CreditMovement[]; total: number }> {
  return inOneSnapshot(db, async (trx) => {
    const [totals] = (
      await trx.raw<{ rows: { stored: number; credited: number; balance: number | null }[] }>(
        `select count(*) as stored, coalesce(sum(amount), 0)::bigint as credited,
                (select balance from credits where user_id = ?) as balance
           from credit_movements where user_id = ?`,
        [userId, userId],
      )
    ).rows;
    const stored = totals?.stored ?? 0;
    const spent = Math.max(0, (totals?.credited ?? 0) - (totals?.balance ?? 0));
    const total = stored + spent;
    // The page as positions in the ledger from its start: (low, high].
    const high =
      filter.order === 'asc'
        ? Math.min(total, filter.offset + filter.limit)
        : Math.max(0, total - filter.offset);
    const low =
      filter.order === 'asc' ? Math.min(total, filter.offset) : Math.max(0, high - filter.limit);
    if (high <= low) return { movements: [], total };

    const placed = await placedMovements(trx, userId, low, high);
    const before = placed.filter((row) => row.position <= low).at(-1);
    const within = placed.filter((row) => row.position > low);
    // Spends numbered from 1 in ledger order: the first of the page, and how many it holds.
    const firstSpend = low - (before?.ordinal ?? 0) + 1;
    const spendCount = Math.min(high - low - within.length, spent - firstSpend + 1);
    const spends = await spendsOf(trx, userId, firstSpend, spendCount, spent);

    const page: CreditMovement[] = [];
    let last = before;
    let nextSpend = 0;
    let nextMovement = 0;
    for (let position = low + 1; position <= high; position += 1) {
      const movement = within[nextMovement];
      if (movement?.position === position) {
        page.push(storedMovement(movement));
        last = movement;
        nextMovement += 1;
        continue;
      }
      const spend = spends[nextSpend];
      if (spend === undefined) break;
      const number = firstSpend + nextSpend;
      nextSpend += 1;
      // The balance after the last movement, less each spend since.
      const balanceAfter =
        last === undefined ? -number : last.balance_after - (number - last.spends_before);
      page.push(spendMovement(userId, spend, balanceAfter));
    }
    return { movements: filter.order === 'asc' ? page : page.reverse(), total };
  });
}

/**
 * The user's movements placed among the spends, from the last one at or before `low` (whose
 * balance the spends after it start from) up to `high`.
 */
async function placedMovements(
  trx: Queryable,
  userId: string,
  low: number,
  high: number,
): Promise<PlacedRow[]> {
  const columns = CREDIT_MOVEMENT_COLUMNS.map((column) => `m.${column}`).join(', ');
  // Window sums over bigint are numeric, which comes back as text.
  type Numeric = number | string;
  const result = await trx.raw<{
    rows: (Omit<PlacedRow, 'ordinal' | 'spends_before' | 'position'> & {
      ordinal: Numeric;
      spends_before: Numeric;
      position: Numeric;
    })[];
  }>(
    `with counted as (
       select ${columns}, row_number() over running as ordinal,
              sum(m.amount) over running - m.balance_after as counted_before
         from credit_movements m where m.user_id = ?
       window running as (order by m.id rows between unbounded preceding and current row)
     ),
     spread as (
       -- Never fewer spends before a movement than before the one ahead of it.
       select counted.*, greatest(0, max(counted_before) over running) as spends_before
         from counted
       window running as (order by id rows between unbounded preceding and current row)
     ),
     placed as (
       select spread.*, ordinal + spends_before as position,
              lead(ordinal + spends_before) over (order by id) as next_position
         from spread
     )
     select placed.id, placed.user_id, placed.kind, placed.amount, placed.balance_after,
            placed.actor_id, placed.reason, placed.request_id, placed.at, placed.refund_of,
            placed.ordinal, placed.spends_before, placed.position,
            a.action as refund_action, a.target as refund_target, a.changes as refund_changes
       from placed left join audit_log a on a.id = placed.refund_of
      where (placed.position > ? and placed.position <= ?)
         or (placed.position <= ? and coalesce(placed.next_position > ?, true))
      order by placed.id`,
    [userId, low, high, low, low],
  );
  return result.rows.map((row) => ({
    ...row,
    ordinal: Number(row.ordinal),
    spends_before: Number(row.spends_before),
    position: Number(row.position),
  }));
}

/**
 * Spends `first` to `first + count - 1` (numbered from 1, oldest first, of `spent`): an index scan
 * of the user's audit entries from the nearer end.
 */
async function spendsOf(
  trx: Queryable,
  userId: string,
  first: number,
  count: number,
  spent: number,
): Promise<SpendRow[]> {
  if (count <= 0) return [];
  const fromStart = first - 1;
  const fromEnd = spent - (first + count - 1);
  const newestFirst = fromEnd < fromStart;
  const rows = await trx('audit_log')
    .where('actor_id', userId)
    .whereIn('action', CREDIT_SPENDING_ACTIONS)
    .orderBy('id', newestFirst ? 'desc' : 'asc')
    .offset(newestFirst ? fromEnd : fromStart)
    .limit(count)
    .select<SpendRow[]>('id', 'action', 'target', 'changes', 'request_id', 'at');
  return newestFirst ? rows.reverse() : rows;
}

function storedMovement(row: PlacedRow): CreditMovement {
  const refunded =
    row.refund_action === null || row.refund_target === null
      ? undefined
      : spendPurposeOf({
          action: row.refund_action,
          target: row.refund_target,
          changes: row.refund_changes,
        });
  return creditMovementOf(row, refunded ?? null);
}

function spendMovement(userId: string, row: SpendRow, balanceAfter: number): CreditMovement {
  return {
    id: row.id,
    userId,
    kind: 'spend',
    amount: -1,
    balanceAfter,
    actorId: userId,
    reason: null,
    requestId: row.request_id,
    at: row.at,
    spentOn: spendPurposeOf(row) ?? null,
    refundOf: null,
  };
}
