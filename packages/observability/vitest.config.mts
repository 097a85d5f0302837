import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // expect.poll waits up to 10 s, not vitest's 1 s: what it waits for (a webhook delivered, a
    // record anchored) takes longer than a second on a loaded machine, and a poll ends once true.
    expect: { poll: { timeout: 10_000 } },
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Starting an embedded PGlite takes a few seconds; deliveries wait on retries and leases.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
