import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Beside the other suites on a 2-core CI machine at a load of 10, a file's first request (real
    // servers, modules loading) took over vitest's default 5 s once: the budget is the work's.
    testTimeout: 30_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The code under test is pure and keeps no global state worth resetting, so test files share
    // workers: a fresh worker per file made the suite ~7x slower on a 2-core machine.
    isolate: false,
  },
});
