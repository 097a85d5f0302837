import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Starting an embedded PGlite takes a few seconds; deliveries wait on retries and leases.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker keeps what it loaded (modules, PGlite's compiled engine) from one file to the next,
    // instead of a new process per file loading it all again: each file opens and closes its own
    // databases and servers, so none sees another's state.
    isolate: false,
  },
});
