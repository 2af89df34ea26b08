import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Test workers are forked from this process, so they trust the local HTTPS test servers'
// certificate (operations.md: ALLOW_PRIVATE_DESTINATIONS with NODE_EXTRA_CA_CERTS).
process.env.NODE_EXTRA_CA_CERTS = fileURLToPath(new URL('./test/fixtures/tls/cert.pem', import.meta.url));

/**
 * Files that measure the event loop (longest stall, gaps between ticks): with LOOP_TESTS=apart
 * the main run leaves them out and scripts/test-all.sh runs them afterwards, one file at a time
 * in a fresh process. Beside another file's fork on two cores, and at the end of a fork whose
 * heap every earlier file grew, they measured the machine rather than the code (CI: a 30 MB body's
 * stall of 261 ms alone took 1,755 ms there).
 */
export const LOOP_FILES = [
  'test/http/body-bounds.test.ts',
  'test/http/public-body-limit.test.ts',
  'test/modules/imports/event-loop.test.ts',
  'test/modules/imports/linktrail-event-loop.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // `npm run cluster --quick` loads both cores for two minutes: scripts/test-all.sh runs it
    // alone, after the PostgreSQL pass (CLUSTER_TEST=1).
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.CLUSTER_TEST === '1' ? [] : ['test/e2e/cluster.test.ts']),
      ...(process.env.LOOP_TESTS === 'apart' ? LOOP_FILES : []),
    ],
    // Every answer of the apps a test starts is checked against their OpenAPI document.
    setupFiles: ['test/setup/contract.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what it reads; vitest's default of one second failed CI once on two loaded
    // cores (a page that had not re-rendered yet). A longer bound costs time only when it fails.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Two cores: two files at a time, each with its own in-memory PGlite.
    poolOptions: { forks: { maxForks: Number(process.env.TEST_FORKS ?? 2), minForks: 1 } },
    // One module graph per worker instead of per file (a minute of each CI pass went to loading
    // the same modules again per file): the files share no global state — no mocks, no
    // process.env writes, fake timers restored — and each one starts its own app and database.
    isolate: false,
  },
});
