import type { Queryable } from '../queryable.js';

/** The advisory lock of `trustpoint init-admin`, apart from `MIGRATION_LOCK_KEY`. */
export const BOOTSTRAP_LOCK_KEY = 7_420_250_001;

/**
 * Takes the transaction-scoped advisory lock (`pg_advisory_xact_lock`) under which the first
 * administrator is created: whichever `trustpoint init-admin` takes it first creates one, the
 * others wait, then find it. Released when the transaction ends.
 */
export async function takeBootstrapLock(trx: Queryable): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(?)', [BOOTSTRAP_LOCK_KEY]);
}
