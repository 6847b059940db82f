#!/usr/bin/env bash
# Runs every test: installs Chromium and the registry fixtures when missing, then the workspace
# tests (real Chromium, real pages on loopback, no LLM).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh --tests
# The dashboard's PostgreSQL tests need a server (scripts/postgres.sh starts one, as root); they
# fail, never skip, when it is missing.
if [ -z "${WINDUP_TEST_DATABASE_URL:-}" ]; then
  WINDUP_TEST_DATABASE_URL="$(bash scripts/postgres.sh | tail -n 1)"
fi
export WINDUP_TEST_DATABASE_URL
# Most of a test's time is spent waiting on Chromium and on its pages' timers, not computing:
# four tests per core (at most 16) keep a small machine busy. On 2 cores the suite took 558 s
# one test per core, 312 s at two per core and 212 s at four, every test passing
# (NEXTEST_TEST_THREADS overrides).
threads=$(( $(nproc) * 4 ))
[ "$threads" -le 16 ] || threads=16
export NEXTEST_TEST_THREADS="${NEXTEST_TEST_THREADS:-$threads}"
cargo nextest run --workspace --no-fail-fast "$@"
