#!/usr/bin/env bash
# How much the dashboard adds to `npm ci` on a clean clone (issue 14): the current commit
# against the last commit before web/ existed, each in a fresh clone with an npm cache of its
# own (so neither finds the other's downloads). Each is run twice: first with its empty cache
# (downloads included), then again in another fresh clone with that cache warm. `npm ci` runs
# the prepare script, so both include `npm run build` (and, after, the Vite build of web/).
#
#   bash bench/install-time.sh [after-commit]     # after-commit defaults to HEAD
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
after=$(git -C "$repo" rev-parse "${1:-HEAD}")
# The commit that added web/ (its vite.config.ts and index.html), and the one before it.
first_web=$(git -C "$repo" log --diff-filter=A --format=%H -- web/index.html web/vite.config.ts | tail -1)
before=$(git -C "$repo" rev-parse "$first_web^")
work=$(mktemp -d /tmp/lt-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "before: $(git -C "$repo" log -1 --format='%h %s' "$before" | cut -c1-90)"
echo "after:  $(git -C "$repo" log -1 --format='%h %s' "$after" | cut -c1-90)"
echo "node $(node --version), npm $(npm --version), load: $(cut -d' ' -f1-3 /proc/loadavg)"

run() { # label commit cache-state
  local dir="$work/$1-$3"
  git clone -q --no-checkout "$repo" "$dir"
  git -C "$dir" checkout -q "$2"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$dir" && npm ci --cache "$work/cache-$1" --no-audit --no-fund --loglevel=error >"$work/$1-$3.log" 2>&1) || {
    echo "npm ci failed for $1 ($3):"
    tail -20 "$work/$1-$3.log"
    exit 1
  }
  t1=$(date +%s.%N)
  printf '%-7s %-10s %6.1f s   (load %s)\n' "$1" "$3" "$(echo "$t1 - $t0" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
  # What of that is the dashboard's own build step (the API types and the Vite build), run again alone.
  if grep -q '"build:web"' "$dir/package.json"; then
    t0=$(date +%s.%N)
    (cd "$dir" && npm run build:web >/dev/null 2>&1)
    t1=$(date +%s.%N)
    printf '%-7s %-10s %6.1f s   npm run build:web alone\n' "$1" "" "$(echo "$t1 - $t0" | bc)"
  fi
  rm -rf "$dir"
}

# Alternating, so a change in the machine's load falls on both.
run before "$before" cold
run after "$after" cold
run before "$before" warm
run after "$after" warm
