import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // expect.poll waits up to 10 s, not vitest's 1 s: what it waits for (a webhook delivered, a
    // record anchored) takes longer than a second on a loaded machine, and a poll ends once true.
    expect: { poll: { timeout: 10_000 } },
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
