import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Test workers are forked from this process, so they trust the local HTTPS test servers'
// certificate (operations.md: ALLOW_PRIVATE_DESTINATIONS with NODE_EXTRA_CA_CERTS).
process.env.NODE_EXTRA_CA_CERTS = fileURLToPath(new URL('./test/fixtures/tls/cert.pem', import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two files at a time, each with its own in-memory PGlite.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // One module graph per worker instead of per file (a minute of each CI pass went to loading
    // the same modules again per file): the files share no global state — no mocks, no
    // process.env writes, fake timers restored — and each one starts its own app and database.
    isolate: false,
  },
});
