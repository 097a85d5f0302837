// @trustpoint/test-database: a database of its own for each test, on PGlite and on PostgreSQL
// (with DATABASE_URL), a fresh PostgreSQL database for a whole service, and digests of what
// requests changed in a database. For tests only.
export { callerStateDigest } from './caller-state-digest.js';
export { databaseDigest } from './database-digest.js';
export { freshPostgresDatabase } from './fresh-postgres-database.js';
export type { FreshPostgresDatabase } from './fresh-postgres-database.js';
export { makePgliteImages } from './pglite-images.js';
export { openTestDatabase } from './open-test-database.js';
export type { TestDatabase, TestDatabaseOptions } from './open-test-database.js';
export { testBackends } from './test-backends.js';
