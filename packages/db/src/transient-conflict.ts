// SQLSTATE 40P01 (deadlock detected) and 40001 (serialization failure): PostgreSQL rolled the
// transaction back to break a cycle with another one, and running it again is the documented cure.
const TRANSIENT_SQL_STATES = new Set(['40P01', '40001']);

/** Whether the database rolled a transaction back only because of a concurrent one. */
export function isTransientConflict(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    TRANSIENT_SQL_STATES.has(error.code)
  );
}

/**
 * Runs a transaction again when the database broke a deadlock or serialization conflict by
 * rolling it back (nothing of it was kept), up to `attempts` times in all.
 */
export async function retryTransientConflicts<T>(
  transaction: () => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isTransientConflict(error)) throw error;
    }
  }
}
