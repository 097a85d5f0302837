import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Beside the other suites on a 2-core CI machine at a load of 10, a file's first request (real
    // servers, modules loading) took over vitest's default 5 s once: the budget is the work's.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
  },
});
