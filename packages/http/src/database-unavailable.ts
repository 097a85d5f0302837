/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exceptions), 57P01-57P03
 * (administrator or crash shutdown, "the database system is starting up").
 */
const UNAVAILABLE_SQL_STATE = /^(08...|57P0[123])$/;
/**
 * Socket errors of a connection that could not be made or was cut (EPIPE: written to after), and
 * of a database host that cannot be found or reached for now (its name moving in a failover, a
 * network partition).
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * What node-postgres and knex say, without a code, when the server went away under a connection
 * or no connection could be had in time.
 */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|Timeout acquiring a connection/;

/**
 * Whether a request failed only because the database could not be reached (a restart, a failover):
 * the caller may try again, so it is told 503 rather than the 500 of a fault in the service.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_SQL_STATE.test(code) || UNREACHABLE_CODES.has(code))
  ) {
    return true;
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}
