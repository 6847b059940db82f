#!/usr/bin/env bash
# The engine's two boundaries with Chromium, as ARCHITECTURE.md states them ("Invariants"):
# - a CDP method is named only in runner/engine/src/browser/cdp/ (typed commands);
# - page JavaScript is reached only through browser/injected.rs (typed functions over
#   the modules of injected/, assembled into one script): nothing else names `window.__windup` or evaluates code in the page.
# Also: only action/ and dashboard/ talk to GitHub (octocrab). Fails naming each offending line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
src=runner/engine/src
status=0
offend() { echo "$1:"; echo "$2" | sed 's/^/  /'; status=1; }

cdp="$(grep -rnE '"(Accessibility|Browser|DOM|Emulation|Fetch|Input|Inspector|Network|Page|Runtime|Storage|Target)\.[a-zA-Z]+"' \
  --include='*.rs' "$src" | grep -v "^$src/browser/cdp/" || true)"
[ -z "$cdp" ] || offend "a CDP method named outside $src/browser/cdp/" "$cdp"

page="$(grep -rnE '__windup|Runtime\.evaluate|callFunctionOn' --include='*.rs' "$src" |
  grep -vE "^$src/browser/(cdp/|injected\.rs)" || true)"
[ -z "$page" ] || offend "page JavaScript reached outside $src/browser/injected.rs" "$page"

gh="$(grep -rln 'octocrab' --include='*.rs' runner || true)"
[ -z "$gh" ] || offend "octocrab outside action/ and dashboard/" "$gh"

[ "$status" -ne 0 ] || echo "boundaries hold: CDP in browser/cdp/, page code through browser/injected.rs, GitHub only in action/ and dashboard/"
exit "$status"
