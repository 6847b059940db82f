#!/usr/bin/env bash
# Installs what Windup and its tests need on a fresh Debian machine: Chromium and its headless
# shell, fonts, xmllint and openssl (apt),
# then the registry fixtures (npm todomvc, playwright-core; PyPI miniwob, jupyterlab). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The headless shell: what headless runs use when it is there (browser/launch.rs, find_chromium).
[ -x /usr/lib/chromium/chromium-headless-shell ] || need+=(chromium-headless-shell)
dpkg -s fonts-liberation >/dev/null 2>&1 || need+=(fonts-liberation)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# venv with its pip: the JupyterLab fixture is a venv (Debian splits ensurepip out of python3).
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
# xmllint: the tests check the JUnit report with a real XML parser.
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
# openssl: the dashboard's GitHub App test makes its app a fresh RSA key.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: apt-get install ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ "${1:-}" = "--tests" ]; then
  bash "$here/fetch-fixtures.sh" >/dev/null
fi
