import type { Queryable } from '../queryable.js';

/** What a budget of failed PIN attempts counts: one certificate, or one client address. */
export type PinFailureScope = 'certificate' | 'address';

/**
 * A budget of failed PIN attempts: at most `limit` in a window of `windowMs`, which starts at the
 * first attempt counted against it (fixed windows, so `limit / windowMs` is the sustained rate).
 */
export interface PinFailureBudget {
  scope: PinFailureScope;
  subject: string;
  limit: number;
  windowMs: number;
}

/** An attempt counted against a budget, and the end of the window it was counted in. */
export interface HeldPinAttempt {
  scope: PinFailureScope;
  subject: string;
  /** Milliseconds since the epoch. */
  windowEndsAt: number;
}

export type PinAttemptReservation =
  | {
      granted: true;
      held: HeldPinAttempt[];
      /** A budget began a new window: a moment to prune the ended ones. */
      startedWindow: boolean;
    }
  | {
      granted: false;
      /** When the last of the spent budgets opens again (ms since the epoch). */
      retryAt: number;
    };

/** The order budgets' rows are locked in; any order works as long as every process uses it. */
function byRow(a: PinFailureBudget, b: PinFailureBudget): number {
  if (a.scope !== b.scope) return a.scope < b.scope ? -1 : 1;
  if (a.subject !== b.subject) return a.subject < b.subject ? -1 : 1;
  return 0;
}

/** Rolls back the reservation's transaction when a budget is spent. */
class BudgetSpent extends Error {
  constructor(readonly retryAt: number) {
    super('PIN failure budget spent');
  }
}

/**
 * Counts one attempt against every budget, or against none when any of them is spent. Call it
 * before checking the PIN, and `releasePinAttempt` once the PIN proved right: counting first is
 * what makes the limit exact, since concurrent attempts queue on the budget's row and each sees the
 * count the others left (an attempt checked first and counted after would let a burst of guesses
 * through together). The budgets' rows are taken in (scope, subject) order, so concurrent
 * reservations cannot deadlock.
 */
export async function reservePinAttempt(
  db: Queryable,
  budgets: readonly PinFailureBudget[],
  now: number,
): Promise<PinAttemptReservation> {
  const ordered = [...budgets].sort(byRow);
  try {
    return await db.transaction(async (trx) => {
      const held: HeldPinAttempt[] = [];
      let startedWindow = false;
      let retryAt: number | undefined;
      for (const budget of ordered) {
        const { scope, subject, limit, windowMs } = budget;
        // An ended window starts over at 1; otherwise the count goes up only while below the
        // limit, and a spent budget returns no row.
        const counted = await trx.raw<{ rows: { window_ends_at: number }[] }>(
          `insert into pin_failures as budget (scope, subject, failures, window_ends_at)
           values (?, ?, 1, ?)
           on conflict (scope, subject) do update
             set failures = case when budget.window_ends_at <= ? then 1
                                 else budget.failures + 1 end,
                 window_ends_at = case when budget.window_ends_at <= ? then excluded.window_ends_at
                                       else budget.window_ends_at end
             where budget.window_ends_at <= ? or budget.failures < ?
           returning window_ends_at`,
          [scope, subject, now + windowMs, now, now, now, limit],
        );
        const row = counted.rows[0];
        if (row !== undefined) {
          const windowEndsAt = row.window_ends_at;
          held.push({ scope, subject, windowEndsAt });
          if (windowEndsAt === now + windowMs) startedWindow = true;
          continue;
        }
        // The upsert locked the row even though it left it unchanged: this reads what it saw.
        const spent = await trx('pin_failures')
          .where({ scope, subject })
          .first<{ window_ends_at: number } | undefined>('window_ends_at');
        retryAt = Math.max(retryAt ?? now, spent?.window_ends_at ?? now);
      }
      if (retryAt !== undefined) throw new BudgetSpent(retryAt);
      return { granted: true, held, startedWindow };
    });
  } catch (error) {
    if (error instanceof BudgetSpent) return { granted: false, retryAt: error.retryAt };
    throw error;
  }
}

/**
 * Gives back attempts whose PIN proved right: a reader who knows the PIN never uses up anyone's
 * budget. An attempt whose window has since ended is not given back to the next window. One
 * statement per budget, each locking one row, so releases cannot deadlock with reservations.
 */
export async function releasePinAttempt(
  db: Queryable,
  held: readonly HeldPinAttempt[],
): Promise<void> {
  for (const attempt of held) {
    await db('pin_failures')
      .where({
        scope: attempt.scope,
        subject: attempt.subject,
        window_ends_at: attempt.windowEndsAt,
      })
      .andWhere('failures', '>', 0)
      .decrement('failures', 1);
  }
}

/**
 * Deletes up to `maxRows` budgets whose window ended by `now`; returns how many. Rows another
 * transaction holds are skipped (and left for a later prune) rather than waited for, so pruning
 * never blocks, nor deadlocks with, an attempt being counted.
 */
export async function prunePinFailures(
  db: Queryable,
  now: number,
  maxRows = 1_000,
): Promise<number> {
  const result = await db.raw<{ rows: unknown[] }>(
    `delete from pin_failures where (scope, subject) in (
       select scope, subject from pin_failures
        where window_ends_at <= ?
        order by window_ends_at
        limit ?
        for update skip locked)
     returning 1`,
    [now, maxRows],
  );
  return result.rows.length;
}
