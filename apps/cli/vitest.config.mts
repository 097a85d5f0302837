import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    fileParallelism: false,
    // Commands run against the whole service: a certification waits for its block.
    testTimeout: 60_000,
  },
});
