import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
    // Against the whole service: a certification waits for its block; start-up deploys contracts.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
