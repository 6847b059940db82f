#!/usr/bin/env bash
# Windup's two boundaries with Chromium, as ARCHITECTURE.md states them ("Invariants"). Most of
# it is the compiler's now: the typed protocol (`runner/browser/src/cdp/`) is private to the
# browser crate, and raw CDP or page JavaScript on a `Session` exists only with the crate's
# `test-access` feature, which no shipped crate turns on (scripts/deps-direction.sh). What a
# compiler cannot see, this checks, naming each offending line:
# - a CDP method is named only in runner/browser/src/cdp/ (a test may send raw CDP, and the
#   testkit's own small client, an oracle beside the engine, is a test's);
# - page JavaScript is reached only through runner/browser/src/injected.rs (typed functions over
#   the modules of runner/browser/injected/, assembled into one script): no other source file
#   names `window.__windup` or evaluates code in the page;
# - only action/ and dashboard/ talk to GitHub (octocrab).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
browser=runner/browser/src
sources=(runner/model/src runner/browser/src runner/engine/src runner/cli/src runner/mcp/src
  action/src dashboard/src)
status=0
offend() { echo "$1:"; echo "$2" | sed 's/^/  /'; status=1; }

cdp="$(grep -rnE '"(Accessibility|Browser|DOM|Emulation|Fetch|Input|Inspector|Network|Page|Runtime|Storage|Target)\.[a-zA-Z]+"' \
  --include='*.rs' "${sources[@]}" | grep -v "^$browser/cdp/" || true)"
[ -z "$cdp" ] || offend "a CDP method named outside $browser/cdp/" "$cdp"

page="$(grep -rnE '__windup|Runtime\.evaluate|callFunctionOn' --include='*.rs' "${sources[@]}" |
  grep -vE "^$browser/(cdp/|injected\.rs)" || true)"
[ -z "$page" ] || offend "page JavaScript reached outside $browser/injected.rs" "$page"

gh="$(grep -rln 'octocrab' --include='*.rs' runner || true)"
[ -z "$gh" ] || offend "octocrab outside action/ and dashboard/" "$gh"

[ "$status" -ne 0 ] || echo "boundaries hold: CDP in $browser/cdp/, page code through $browser/injected.rs, GitHub only in action/ and dashboard/"
exit "$status"
