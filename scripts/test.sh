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
# twice as many tests as cores keep a small machine busy (NEXTEST_TEST_THREADS overrides).
export NEXTEST_TEST_THREADS="${NEXTEST_TEST_THREADS:-$(( $(nproc) * 2 ))}"
cargo nextest run --workspace --no-fail-fast "$@"
