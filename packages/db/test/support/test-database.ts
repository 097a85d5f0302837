// The test databases of db's own tests. Other packages' tests use @trustpoint/test-database, which
// depends on db and so cannot serve db's own tests (a package cycle); this copy reads db's sources.
export { openTestDatabase } from './open-test-database.js';
export type { TestDatabase, TestDatabaseOptions } from './open-test-database.js';
export { testBackends } from './test-backends.js';
export { makePgliteImages } from './pglite-images.js';
