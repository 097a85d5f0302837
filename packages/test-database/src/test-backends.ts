import type { DatabaseBackend } from '@trustpoint/db';

/**
 * The backends a test suite should run against: always the embedded PGlite, and PostgreSQL too
 * when `DATABASE_URL` is set (as in CI). Synchronous, for `describe.each(testBackends())`.
 */
export function testBackends(env: NodeJS.ProcessEnv = process.env): DatabaseBackend[] {
  return env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}
