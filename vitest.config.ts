import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two files at a time, each with its own in-memory PGlite.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
