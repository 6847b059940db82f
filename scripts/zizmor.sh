#!/usr/bin/env bash
# Every workflow and action file passes zizmor, a static security analyser for GitHub Actions
# (PyPI `zizmor`, pinned; a binary wheel, installed into target/tools/ so no system Python is
# touched). `--offline`: no GitHub API, so CI needs no token. A finding that is accepted is
# suppressed where it is, `# zizmor: ignore[AUDIT] reason`, never in a config file.
#
#   scripts/zizmor.sh            install when needed, then check
#   scripts/zizmor.sh --install  install only (.ci/run's set-up step)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version="1.32.0"
dir="target/tools/zizmor-$version"
bin="$dir/bin/zizmor"
if ! "$bin" --version 2>/dev/null | grep -q "$version"; then
  rm -rf "$dir"
  python3 -m pip install --quiet --disable-pip-version-check --no-input --root-user-action=ignore \
    --target "$dir" "zizmor==$version" >&2
  "$bin" --version >/dev/null
fi
[ "${1:-}" = "--install" ] && exit 0
"$bin" --offline --no-progress .github/workflows action.yml setup/action.yml
