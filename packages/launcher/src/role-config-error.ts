/**
 * Why a role (or the whole service) cannot start with this configuration, said once in one line
 * with what to do about it: a setting that is not usable (`readLauncherConfig`), or a part the
 * configuration leads to that is missing (no DATABASE_URL, no chain, migrations not applied).
 * `trustpoint serve` and `trustpoint start` print its message alone and exit 2; any other error
 * keeps its stack.
 */
export class RoleConfigError extends Error {
  override readonly name = 'RoleConfigError';
}

/** What a failed first connection to `DATABASE_URL` says when the configuration is at fault. */
const CANNOT_CONNECT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Where `DATABASE_URL` points (host, port, database), never its user or password. */
function postgresAt(url: string): string {
  if (!URL.canParse(url)) return 'DATABASE_URL';
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}

/**
 * `error` of a first use of `DATABASE_URL` as the `RoleConfigError` to stop with, when it says the
 * server cannot be reached, refuses the credentials (SQLSTATE class 28) or has no such database
 * (3D000); `error` itself otherwise, and always without a `url` (the embedded database). The
 * message names the variable and where it points, never the password, with PostgreSQL's reason.
 */
export function databaseUrlError(error: unknown, url: string | undefined): unknown {
  if (url === undefined) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return error;
  if (!CANNOT_CONNECT.has(code) && !code.startsWith('28') && code !== '3D000') return error;
  const reason = error instanceof Error ? error.message : code;
  return new RoleConfigError(
    `DATABASE_URL: PostgreSQL at ${postgresAt(url)} cannot be used: ${reason}`,
  );
}
