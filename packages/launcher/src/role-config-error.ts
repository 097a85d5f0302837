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
