import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    fileParallelism: false,
    // One process for the files, one after another, keeping what it loaded (modules, PGlite's
    // compiled engine) between them, instead of a new process per file loading it all again: each
    // file opens and closes its own databases, chains and servers, so none sees another's state.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
