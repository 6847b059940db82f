#!/usr/bin/env bash
# Install the third-party test pages used by Windup's integration tests.
#
#   npm  todomvc@0.1.1          -> $FIXTURES/npm/node_modules/todomvc        (TodoMVC examples)
#   npm  playwright-core@1.65.1 -> $FIXTURES/npm/node_modules/playwright-core (reference driver, Node >= 20)
#   npm  @playwright/test@1.65.1 -> $FIXTURES/npm/node_modules/@playwright/test (runs exported specs;
#        no browser download: they drive Debian's chromium)
#   PyPI miniwob==1.1.0         -> $FIXTURES/miniwob/miniwob/html            (MiniWoB++ task pages)
#   PyPI jupyterlab==4.4.10     -> $FIXTURES/jupyterlab (a venv; every package pinned in
#        scripts/jupyterlab-requirements.txt)                                  (a real app)
#   PyPI django==5.2.19         -> $FIXTURES/django                          (PYTHONPATH of the
#        real Django admin the real-app tests run: runner/engine/tests/fixtures/django/site)
#
# $FIXTURES defaults to <repo>/target/fixtures (never committed) and can be
# overridden with WINDUP_FIXTURES_DIR. Idempotent: a second run only checks
# the installed versions and prints the paths. See scripts/FIXTURES.md.
set -euo pipefail

TODOMVC_VERSION=0.1.1
PLAYWRIGHT_CORE_VERSION=1.65.1
# The same release as playwright-core: @playwright/test pins its playwright, which pins the core.
PLAYWRIGHT_TEST_VERSION=$PLAYWRIGHT_CORE_VERSION
MINIWOB_VERSION=1.1.0
DJANGO_VERSION=5.2.19

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
FIXTURES="${WINDUP_FIXTURES_DIR:-$REPO_ROOT/target/fixtures}"
mkdir -p "$FIXTURES"
FIXTURES="$(cd "$FIXTURES" && pwd)"

NPM_DIR="$FIXTURES/npm"
TODOMVC_ROOT="$NPM_DIR/node_modules/todomvc"
PLAYWRIGHT_CORE="$NPM_DIR/node_modules/playwright-core"
PLAYWRIGHT_TEST="$NPM_DIR/node_modules/@playwright/test"
MINIWOB_DIR="$FIXTURES/miniwob"
MINIWOB_HTML="$MINIWOB_DIR/miniwob/html"
JUPYTERLAB_VERSION=4.4.10
JUPYTERLAB_REQUIREMENTS="$SCRIPT_DIR/jupyterlab-requirements.txt"
JUPYTERLAB_DIR="$FIXTURES/jupyterlab"
JUPYTERLAB_PYTHON="$JUPYTERLAB_DIR/bin/python"
DJANGO_DIR="$FIXTURES/django"

log() { echo "fetch-fixtures: $*" >&2; }

# Serialise concurrent runs (e.g. several test binaries calling the script).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$FIXTURES/.fetch-fixtures.lock"
  flock 9
fi

# True if the package.json at $1 declares exactly version $2.
has_version() {
  [ -f "$1" ] && grep -Eq "\"version\"[[:space:]]*:[[:space:]]*\"$2\"" "$1"
}

npm_ok() {
  has_version "$TODOMVC_ROOT/package.json" "$TODOMVC_VERSION" &&
    has_version "$PLAYWRIGHT_CORE/package.json" "$PLAYWRIGHT_CORE_VERSION" &&
    has_version "$PLAYWRIGHT_TEST/package.json" "$PLAYWRIGHT_TEST_VERSION" &&
    [ -f "$TODOMVC_ROOT/examples/vanillajs/index.html" ]
}

miniwob_ok() {
  [ -d "$MINIWOB_DIR/miniwob-$MINIWOB_VERSION.dist-info" ] &&
    [ -f "$MINIWOB_HTML/core/core.js" ] &&
    [ -f "$MINIWOB_HTML/miniwob/click-checkboxes.html" ]
}

django_ok() {
  [ -d "$DJANGO_DIR/django-$DJANGO_VERSION.dist-info" ] &&
    [ -f "$DJANGO_DIR/django/contrib/admin/options.py" ]
}

if ! npm_ok; then
  command -v npm >/dev/null 2>&1 || { log "npm not found (need Node >= 20)"; exit 1; }
  log "installing todomvc@$TODOMVC_VERSION playwright-core@$PLAYWRIGHT_CORE_VERSION @playwright/test@$PLAYWRIGHT_TEST_VERSION into $NPM_DIR"
  mkdir -p "$NPM_DIR"
  # Nothing downloads a browser: exported specs run on Debian's chromium.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$NPM_DIR" --no-audit --no-fund --save-exact --loglevel=error \
    "todomvc@$TODOMVC_VERSION" "playwright-core@$PLAYWRIGHT_CORE_VERSION" "@playwright/test@$PLAYWRIGHT_TEST_VERSION" >&2
  npm_ok || { log "npm install finished but the expected files are missing"; exit 1; }
fi

# pip_target DIR NAME SPEC [pip options]: installs SPEC with pip --target into a temporary folder
# beside DIR, then moves it into place, so an interrupted install never looks complete.
pip_target() {
  local dir="$1" name="$2" spec="$3"
  shift 3
  local tmp="$FIXTURES/.$name.tmp.$$"
  rm -rf "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  "${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check --no-input --root-user-action=ignore \
    "$@" --target "$tmp" "$spec" >&2
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
}

if ! miniwob_ok; then
  log "installing miniwob==$MINIWOB_VERSION into $MINIWOB_DIR"
  pip_target "$MINIWOB_DIR" miniwob "miniwob==$MINIWOB_VERSION" --no-deps
  miniwob_ok || { log "pip install finished but the expected files are missing"; exit 1; }
fi

# JupyterLab: a venv built in place (a venv cannot be moved), marked complete by a stamp holding
# the requirements file's hash, so a changed pin reinstalls it.
jupyterlab_stamp() { sha256sum "$JUPYTERLAB_REQUIREMENTS" | cut -d' ' -f1; }
jupyterlab_ok() {
  [ -f "$JUPYTERLAB_DIR/.windup-stamp" ] && [ "$(cat "$JUPYTERLAB_DIR/.windup-stamp")" = "$(jupyterlab_stamp)" ] &&
    [ -x "$JUPYTERLAB_PYTHON" ] &&
    [ -d "$(echo "$JUPYTERLAB_DIR"/lib/python3*/site-packages/jupyterlab-"$JUPYTERLAB_VERSION".dist-info)" ]
}
if ! jupyterlab_ok; then
  PYTHON="${PYTHON:-python3}"
  log "installing jupyterlab==$JUPYTERLAB_VERSION (pinned: $JUPYTERLAB_REQUIREMENTS) into $JUPYTERLAB_DIR"
  grep -qx "jupyterlab==$JUPYTERLAB_VERSION" "$JUPYTERLAB_REQUIREMENTS" ||
    { log "$JUPYTERLAB_REQUIREMENTS does not pin jupyterlab==$JUPYTERLAB_VERSION"; exit 1; }
  rm -rf "$JUPYTERLAB_DIR"
  "$PYTHON" -m venv "$JUPYTERLAB_DIR" >&2 ||
    { log "python3 -m venv failed (on Debian: apt-get install python3-venv)"; exit 1; }
  "$JUPYTERLAB_PYTHON" -m pip install --quiet --disable-pip-version-check --no-input \
    -r "$JUPYTERLAB_REQUIREMENTS" >&2
  jupyterlab_stamp > "$JUPYTERLAB_DIR/.windup-stamp"
  jupyterlab_ok || { log "pip install finished but jupyterlab $JUPYTERLAB_VERSION is missing"; exit 1; }
fi
if ! django_ok; then
  log "installing django==$DJANGO_VERSION (with its asgiref and sqlparse) into $DJANGO_DIR"
  pip_target "$DJANGO_DIR" django "django==$DJANGO_VERSION"
  django_ok || { log "pip install finished but the expected files are missing"; exit 1; }
fi

# Machine-readable summary (KEY=VALUE, absolute paths) on stdout.
cat <<EOF
WINDUP_FIXTURES_DIR=$FIXTURES
TODOMVC_ROOT=$TODOMVC_ROOT
PLAYWRIGHT_CORE=$PLAYWRIGHT_CORE
PLAYWRIGHT_TEST=$PLAYWRIGHT_TEST
MINIWOB_HTML=$MINIWOB_HTML
JUPYTERLAB_PYTHON=$JUPYTERLAB_PYTHON
DJANGO_PYTHONPATH=$DJANGO_DIR
EOF
