import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Starting an embedded PGlite takes a few seconds; PostgreSQL tests run many transactions.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker keeps what it loaded (modules, PGlite's compiled engine) from one file to the next,
    // instead of a new process per file loading it all again: each file opens and closes its own
    // databases, so none sees another's rows.
    isolate: false,
  },
});
