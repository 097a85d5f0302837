export { openTestDatabase } from './open-test-database.js';
export type { TestDatabase, TestDatabaseOptions } from './open-test-database.js';
export { testBackends } from './test-backends.js';
export { callerStateDigest } from './caller-state-digest.js';
export { makePgliteImages } from './pglite-images.js';
