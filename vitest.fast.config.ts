/**
 * `npm test`: the everyday suite on PGlite — the unit tests and the HTTP tests of every module
 * (vitest.config.ts with the files below left out). `npm run test:all` (scripts/test-all.sh,
 * what CI runs) runs every file, on PGlite and then on PostgreSQL + Redis.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import full from './vitest.config.js';

/** Slow by nature, run by `npm run test:all` only. */
const LEFT_OUT = [
  // Chromium journeys, services killed or stopped under load (node dist/main.js), WORKERS=2,
  // the streaming replica.
  'test/e2e/',
  // Huge bodies and slow clients, PostgreSQL restarts, SIGKILL mid-write, Redis cuts.
  'test/faults/',
  // The hostile-input fuzz over every route.
  'test/fuzz/',
  // The README walkthrough, pasted into bash with `npm start`.
  'test/docs/',
];

const files = readdirSync(fileURLToPath(new URL('./test', import.meta.url)), { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f}`)
  .filter((f) => f.endsWith('.test.ts'));
const fast = files.filter((f) => !LEFT_OUT.some((dir) => f.startsWith(dir)));

if (process.env.VITEST_FAST_QUIET !== '1') {
  console.log(
    [
      `npm test: the fast suite — ${fast.length} of ${files.length} test files (unit + HTTP of every module, on the embedded database), ~3 min on 2 idle cores.`,
      `Not run here: browser journeys, the hostile-input fuzz, fault injection and killed processes, the README walkthrough`,
      `(${LEFT_OUT.join(', ')}) → npm run test:all (what CI runs, PGlite then PostgreSQL + Redis, ~21 min on 2 cores).`,
    ].join('\n'),
  );
}

export default mergeConfig(
  full,
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, ...LEFT_OUT.map((dir) => `${dir}**`)],
    },
  }),
);
