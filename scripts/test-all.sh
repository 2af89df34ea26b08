#!/usr/bin/env bash
# npm run test:all — what CI runs (.ci/run calls it): every test file (browser journeys, the
# hostile-input fuzz, fault injection, killed and restarted processes, the README walkthrough)
# with the full vitest.config.ts, first on PGlite, then on PostgreSQL + Redis in a database
# made for this run and dropped at the end. `npm run test:all -- pglite` or `-- postgres` runs
# one of the two passes; files or vitest options after it go to vitest
# (`npm run test:all -- postgres test/faults`). The cluster test (test/e2e/cluster.test.ts) runs
# alone at the end of the PostgreSQL pass; elsewhere it runs only with CLUSTER_TEST=1. The files
# that measure the event loop (vitest.config.ts LOOP_FILES) run after the rest of each pass, one
# at a time in a fresh process.
set -euo pipefail
cd "$(dirname "$0")/.."

engines="${1:-both}"
[ $# -gt 0 ] && shift
case "$engines" in
  both | pglite | postgres) ;;
  *) echo "usage: npm run test:all [-- both|pglite|postgres [vitest files/options]]" >&2; exit 2 ;;
esac

# Build once, before any test file runs, when dist/ is missing or older than its sources. A test
# that finds it stale (test/helpers/process.ts ensureBuilt) would otherwise rebuild mid-run, and
# the dashboard build empties dist/web while the browser files beside it read it.
if [ ! -f dist/main.js ] || [ ! -f dist/web/index.html ] ||
  [ -n "$(find src -newer dist/main.js -type f -print -quit)" ] ||
  [ -n "$(find web/src web/index.html -newer dist/web/index.html -type f -print -quit)" ]; then
  echo "== test:all: npm run build (dist/ is missing or older than src/ or web/)"
  npm run build
fi
# …and the files need not look again (ensureBuilt): nothing they do changes the sources.
export DIST_CHECKED=1

# The files that measure the event loop run apart, after the rest (vitest.config.ts LOOP_FILES).
loop_files="$(sed -n '/^export const LOOP_FILES/,/^];/p' vitest.config.ts | grep -o "test/[^']*\.test\.ts" | tr '\n' ' ')"

if [ "$engines" != postgres ]; then
  echo "== test:all: every test file on PGlite (in-process limits)"
  # The hostile-input fuzz and the HTTP property tests (test/helpers/property-runs.ts) run in full
  # on PostgreSQL + Redis below; here a third of their seeded
  # runs (the same routes and families), which on PGlite took 200 s of a 26-minute CI.
  if [ $# -eq 0 ]; then
    LOOP_TESTS=apart env -u DATABASE_URL -u REDIS_URL FUZZ_SCALE=0.3 PROPERTY_SCALE=0.3 npx vitest run
    echo "== test:all: the event-loop files, one at a time in a fresh process (vitest.config.ts LOOP_FILES)"
    env -u DATABASE_URL -u REDIS_URL npx vitest run --no-file-parallelism $loop_files
  else
    env -u DATABASE_URL -u REDIS_URL FUZZ_SCALE=0.3 PROPERTY_SCALE=0.3 npx vitest run "$@"
  fi
fi

if [ "$engines" != pglite ]; then
  echo "== test:all: every test file on PostgreSQL + Redis"
  db="linktrail_ci_$(date +%s)_$$"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $db"
  trap 'psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
  if [ $# -eq 0 ]; then
    LOOP_TESTS=apart DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REDIS_URL="redis://127.0.0.1:6379" npx vitest run
    echo "== test:all: the event-loop files, one at a time in a fresh process"
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REDIS_URL="redis://127.0.0.1:6379" npx vitest run --no-file-parallelism $loop_files
  else
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REDIS_URL="redis://127.0.0.1:6379" npx vitest run "$@"
  fi
  if [ $# -eq 0 ]; then
    # Alone, after the rest: it starts two PostgreSQL servers, Redis, HAProxy, three instances
    # and wrk on the same two cores, which would starve the files running beside it.
    echo "== test:all: npm run cluster --quick (PostgreSQL primary and replica, Redis, HAProxy, three instances)"
    CLUSTER_TEST=1 DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REDIS_URL="redis://127.0.0.1:6379" npx vitest run test/e2e/cluster.test.ts
  fi
fi
