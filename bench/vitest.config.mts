import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
    // The soak runs the whole service as processes under load and faults for minutes.
    testTimeout: 360_000,
  },
});
