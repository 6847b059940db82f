#!/usr/bin/env bash
# Dependencies point one way (ARCHITECTURE.md, "Invariants"): cli -> (mcp ->) engine -> browser
# -> model <- dashboard, and action -> engine (without the scanner's parser). Fails, naming the
# edge, when a crate's normal dependency graph holds a crate it must not: the dashboard never
# links the engine or a browser client, the engine never links a web server, a database or
# GitHub's client, the browser crate links the model crate at most (no engine, no scanner, no
# LLM or dashboard client), the model stays serde-and-schemas. The browser's `test-access`
# feature (raw CDP and page JavaScript) is on in no shipped crate's graph. Dev-dependencies
# are not checked: a test may run the real dashboard beside the runner.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# crate: the crates that must not appear in its graph (normal and build edges).
declare -A forbidden=(
  [windup-model]="windup-engine windup-dashboard windup-action tokio reqwest axum sqlx octocrab"
  [windup-browser]="windup-engine windup-dashboard windup-action windup-mcp windup-testkit axum sqlx octocrab oxc_parser askama"
  [windup-engine]="windup-dashboard windup-action axum sqlx octocrab askama_web"
  [windup-dashboard]="windup-engine windup-browser windup-action windup-testkit jsonschema tokio-tungstenite"
  [windup]="windup-dashboard windup-action axum sqlx octocrab"
  [windup-mcp]="windup-dashboard windup-action axum sqlx octocrab"
  [windup-action]="windup-dashboard axum sqlx oxc_parser"
)

status=0
for crate in "${!forbidden[@]}"; do
  deps="$(cargo tree -p "$crate" -e normal,build --prefix none --format '{p}' --offline 2>/dev/null |
    awk '{print $1}' | sort -u)" || {
    echo "deps-direction: cargo tree -p $crate failed" >&2
    exit 2
  }
  for bad in ${forbidden[$crate]}; do
    if grep -qx "$bad" <<<"$deps"; then
      path="$(cargo tree -p "$crate" -e normal,build -i "$bad" --prefix none --offline 2>/dev/null | head -n 4 | tr '\n' ' ')"
      echo "forbidden dependency: $crate -> $bad (via: $path)"
      status=1
    fi
  done
done
for crate in windup windup-action windup-mcp; do
  features="$(cargo tree -p "$crate" -e normal,features -i windup-browser --prefix none --offline 2>/dev/null)" || true
  if grep -q 'feature "test-access"' <<<"$features"; then
    echo "forbidden feature: $crate's build turns on windup-browser/test-access"
    status=1
  fi
done
if [ "$status" -eq 0 ]; then
  echo "dependency direction holds: cli -> mcp -> engine -> browser -> model <- dashboard, action -> engine"
fi
exit "$status"
