/** Makes the PGlite test images before any test file runs, so no test's own time includes an initdb. */
export { makePgliteImages as default } from '@trustpoint/test-database';
