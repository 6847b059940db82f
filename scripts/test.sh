#!/usr/bin/env bash
# Runs every test: installs Chromium and the registry fixtures when missing, then the workspace
# tests (real Chromium, real pages on loopback, no LLM).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh --tests
cargo nextest run --workspace --no-fail-fast "$@"
