#!/usr/bin/env bash
# npm run test:all — what CI runs (.ci/run calls it): every test file (browser journeys, the
# hostile-input fuzz, fault injection, killed and restarted processes, the README walkthrough)
# with the full vitest.config.ts, first on PGlite, then on PostgreSQL + Redis in a database
# made for this run and dropped at the end. `npm run test:all -- pglite` or `-- postgres` runs
# one of the two passes; files or vitest options after it go to vitest
# (`npm run test:all -- postgres test/faults`). The cluster test (test/e2e/cluster.test.ts) runs
# alone at the end of the PostgreSQL pass; elsewhere it runs only with CLUSTER_TEST=1. The files
# that measure the event loop (vitest.config.ts LOOP_FILES) run after the rest of each pass, one
# at a time in a fresh process. The files that cannot depend on the engine (engine_free below) run
# in the PGlite pass only.
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

# Files whose subject cannot depend on the engine run in the PGlite pass only. Each tests
# functions (or the config parser, a packed tarball, spawned processes given an environment of
# their own) and nothing in its import graph reads DATABASE_URL or REDIS_URL: no test app, no
# database, no runtime — on PostgreSQL + Redis it ran the same code on the same input again
# (21 s of the PostgreSQL pass's two forks, measured). A file that starts using the engine must
# leave this list; the check below refuses a listed file that imports what opens one.
engine_free=(
  test/config.test.ts
  test/core/csv.test.ts test/core/email.test.ts test/core/money.test.ts test/core/poll-loop.test.ts test/core/sealed.test.ts
  test/db/ids.test.ts
  test/http/contract-check.test.ts test/http/json-body.test.ts
  test/modules/clicks/queue.test.ts
  test/modules/dashboard.test.ts
  test/modules/domains/host.property.test.ts
  test/modules/imports/bitly.test.ts test/modules/imports/csv.test.ts test/modules/imports/dates.test.ts test/modules/imports/dub.test.ts
  test/modules/imports/event-loop.test.ts test/modules/imports/property.test.ts test/modules/imports/public-shorteners.test.ts
  test/modules/imports/rebrandly.test.ts test/modules/imports/shlink.test.ts
  test/modules/link-tests/beta.test.ts
  test/modules/links/address-guard.test.ts
  test/modules/payouts/files.test.ts
  test/modules/program/reward-check.test.ts test/modules/program/rewards.test.ts
  test/modules/qr/design-url.test.ts
  test/modules/sso/txt.test.ts
  test/modules/stripe/signature.test.ts
  test/modules/users/password.test.ts
  test/modules/webhooks/api-destination.test.ts test/modules/webhooks/delivery-policy.test.ts
  test/modules/webhooks/delivery-sign.test.ts test/modules/webhooks/emit-click-events.test.ts
  test/packages/analytics/pack.test.ts test/packages/sdk/verify-webhook.test.ts
  test/web/analytics-figures.test.ts test/web/import-file.test.ts test/web/import-wording.test.ts test/web/links-csv.test.ts
  test/web/links-stats.test.ts test/web/money.test.ts test/web/program-drafts.test.ts test/web/reward-sentence.test.ts
  test/web/scope-presets.test.ts test/web/stripe-url.test.ts test/web/time-zones.test.ts test/web/utm-values.test.ts
  test/web/webhooks-access.test.ts
)
engine_imports="helpers/app\.js|helpers/fresh-database|helpers/migrated-pglite|dashboard-harness|db/connect\.js|/runtime\.js|inheritedEnv|process\.env\.(DATABASE_URL|REDIS_URL)"
for f in "${engine_free[@]}"; do
  [ -f "$f" ] || { echo "scripts/test-all.sh: engine_free lists $f, which is not there" >&2; exit 2; }
  if grep -qE "$engine_imports" "$f"; then
    echo "scripts/test-all.sh: $f is listed as engine-free but uses the engine (matches: $engine_imports)" >&2
    exit 2
  fi
done
pg_exclude=()
for f in "${engine_free[@]}"; do pg_exclude+=(--exclude "$f"); done
pg_loop_files=""
for f in $loop_files; do
  case " ${engine_free[*]} " in *" $f "*) ;; *) pg_loop_files="$pg_loop_files $f" ;; esac
done

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
    # PG_FORKS: how many files at a time (default 2, one per core). Three took this pass from 513 s
    # to 401 s once (2026-12-01), but in the next CI run the pass ended in vitest's "Terminating
    # worker thread" with two files unreported (faults/database, webhooks/delivery-instances),
    # cause not found: two until that is understood.
    LOOP_TESTS=apart TEST_FORKS="${PG_FORKS:-2}" DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REDIS_URL="redis://127.0.0.1:6379" npx vitest run "${pg_exclude[@]}"
    echo "== test:all: the event-loop files, one at a time in a fresh process"
    # shellcheck disable=SC2086
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REDIS_URL="redis://127.0.0.1:6379" npx vitest run --no-file-parallelism $pg_loop_files
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
