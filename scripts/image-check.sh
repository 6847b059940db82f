#!/usr/bin/env bash
# Builds the Action's image from ./Dockerfile and runs its entrypoint the way GitHub runs a
# Docker action: the workspace at GITHUB_WORKSPACE, a pull_request event at GITHUB_EVENT_PATH,
# GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, every input as INPUT_<NAME> (action.yml's
# defaults, then the step's `with:`). Not part of .ci/run (minutes of apt and image layers);
# the workflows do the same with Docker (.github/workflows/action.yml, release.yml).
#
#   scripts/image-check.sh
#
# Checks, inside the image:
#   1. `windup --version`, and the headless shell the engine picks;
#   2. the bundled example (examples/acme) served by start-command inside the container, from
#      its committed plans: exit 0, the outputs, the job summary; the time from the
#      container's start to the first scenario's result;
#   3. a copy whose Sign in button is gone (a change healing refuses): exit 1 and the `::error`
#      annotation on the scenario's file;
#   4. a copy whose Sign in button is renamed, its plan made by a model: healed inside the
#      container with no LLM, exit 0, the heal in the job summary; the step's time;
# then prints the image's size.
#
# Without Docker (the default, IMAGE_ENGINE=buildah): Debian's `buildah` with `--storage-driver
# vfs --isolation chroot`, which works where no container runtime can start. No registry is
# reached: the base image `debian:bookworm-slim` is made from Debian's packages with
# debootstrap when the store lacks it. With IMAGE_ENGINE=docker (release.yml), Docker builds
# and runs the same image the same way.
#
# Environment:
#   WINDUP_BIN_DIR  a folder with `windup` and `windup-action` already built on Debian bookworm
#                   (glibc 2.36); default: `cargo build --release` of both, here.
#   IMAGE           the tag to build (default localhost/windup-action:check).
#   IMAGE_ENGINE    buildah (default) or docker.
#   KEEP_WORK=1     keep the simulated runner's folders (workspace, event, outputs) and print
#                   where they are.
set -euo pipefail
# The whole script is one block, read before it runs: an edit during a run cannot change it.
{
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
image="${IMAGE:-localhost/windup-action:check}"
started=$SECONDS

heavy() { nice -n 19 ionice -c3 "$@"; }
bah() { buildah --storage-driver vfs "$@"; }
say() { printf '\n== %s (%s s)\n' "$1" "$((SECONDS - started))"; }
fail() {
  echo "image-check: FAILED: $*" >&2
  exit 1
}
engine="${IMAGE_ENGINE:-buildah}"
case "$engine" in
  buildah)
    for tool in buildah debootstrap python3; do
      command -v "$tool" >/dev/null || fail "no $tool; fix: apt-get install -y buildah debootstrap python3"
    done
    [ "$(id -u)" = 0 ] || fail "buildah's vfs store and debootstrap need root here; fix: run as root"
    ;;
  docker) command -v docker >/dev/null || fail "IMAGE_ENGINE=docker but no docker" ;;
  *) fail "IMAGE_ENGINE is buildah or docker, not $engine" ;;
esac

work="$(mktemp -d /tmp/windup-image-check.XXXXXX)"
ctr=""
cleanup() {
  if [ -n "$ctr" ]; then bah rm "$ctr" >/dev/null 2>&1 || true; fi
  # With Docker the entrypoint (root) leaves reports in the workspace that this user may not
  # remove: a leftover in /tmp is no failure.
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "image-check: kept $work" >&2; else rm -rf "$work" 2>/dev/null || true; fi
}
trap cleanup EXIT

# --- the binaries -------------------------------------------------------------------------
say "binaries"
if [ -n "${WINDUP_BIN_DIR:-}" ]; then
  bin_dir="$(cd "$WINDUP_BIN_DIR" && pwd)"
  echo "prebuilt: $bin_dir"
else
  (cd "$root" && heavy cargo build --release --locked -p windup-action && heavy cargo build --release --locked -p windup)
  bin_dir="${CARGO_TARGET_DIR:-$root/target}/release"
fi
for bin in windup windup-action; do
  [ -x "$bin_dir/$bin" ] || fail "no $bin in $bin_dir; fix: build them (cargo build --release -p windup-action && cargo build --release -p windup) or set WINDUP_BIN_DIR"
done
# The image's glibc is bookworm's: a binary built against a newer one does not start there.
if ! grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
  echo "warning: this host is not Debian bookworm; binaries built here may need a newer glibc than the image has" >&2
fi

# --- the base image -----------------------------------------------------------------------
base="$(awk 'toupper($1) == "FROM" { print $2; exit }' "$root/Dockerfile")"
case "$base" in
  */*) base_ref="$base" ;;
  *) base_ref="docker.io/library/$base" ;;
esac
say "base image $base_ref"
if [ "$engine" = docker ]; then
  echo "Docker pulls it"
elif bah inspect --type image "$base_ref" >/dev/null 2>&1; then
  echo "in the store"
else
  [ "$base" = "debian:bookworm-slim" ] || fail "the Dockerfile's base is $base; this script can only make debian:bookworm-slim"
  bash "$root/scripts/bookworm-base.sh" "$base_ref"
fi

# --- the image ----------------------------------------------------------------------------
say "build $image from Dockerfile"
# The context is what the workflows give docker build: the binaries under dist/ (and the
# .dockerignore that keeps everything else out).
ctx="$work/context"
mkdir -p "$ctx/dist"
cp "$bin_dir/windup" "$bin_dir/windup-action" "$ctx/dist/"
cp "$root/.dockerignore" "$ctx/"
if [ "$engine" = docker ]; then
  docker build --file "$root/Dockerfile" --tag "$image" "$ctx" >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log" >&2; fail "the image did not build (docker build)"; }
  echo "built"
else
  heavy buildah --storage-driver vfs bud --quiet --isolation chroot --pull=never -f "$root/Dockerfile" -t "$image" "$ctx" >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log" >&2; fail "the image did not build (buildah bud)"; }
  # `buildah run` takes a command, not the image's ENTRYPOINT: read it from the image, so the
  # step runs exactly what Docker would.
  entrypoint="$(bah inspect --type image "$image" |
    python3 -c 'import json, sys, shlex; print(shlex.join(json.load(sys.stdin)["OCIv1"]["config"]["Entrypoint"]))')"
  echo "built; ENTRYPOINT $entrypoint"
  ctr="$(bah from --pull=never --quiet "$image")"
fi
rm -rf "$ctx"

# A command in the image: `in_image [RUN_ARGS...] -- [COMMAND...]`; no command runs the
# ENTRYPOINT, as GitHub does.
in_image() {
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  if [ "$engine" = docker ]; then
    if [ $# -eq 0 ]; then
      docker run --rm "${args[@]}" "$image"
    else
      docker run --rm "${args[@]}" --entrypoint "$1" "$image" "${@:2}"
    fi
  elif [ $# -eq 0 ]; then
    # shellcheck disable=SC2086 # the entrypoint is a word list, as the image records it
    bah run --isolation chroot "${args[@]}" "$ctr" -- $entrypoint
  else
    bah run --isolation chroot "${args[@]}" "$ctr" -- "$@"
  fi
}

# --- the simulated runner -----------------------------------------------------------------
# GitHub's layout for a Docker action: host folders mounted at /github/{workspace,workflow,
# file_commands,home}, the workspace as the working directory. Readable by all, as a runner's
# checkout is: start-command's app runs as `nobody`.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base_url="http://127.0.0.1:$port"
steps=0

# One step of a workflow: a fresh runner folder $gh holding a workspace with the example under
# examples/acme (a sed expression edits its login page first, when given), then the
# entrypoint. Sets $code and leaves the log in $work/step.log.
run_step() {
  local sed_login="$1"
  shift
  gh="$work/step-$((++steps))"
  mkdir -p "$gh/workspace/examples" "$gh/workflow" "$gh/file_commands" "$gh/home"
  cp -r "$root/examples/acme" "$gh/workspace/examples/acme"
  rm -rf "$gh/workspace/examples/acme/windup-report"
  if [ -n "$sed_login" ]; then sed -i "$sed_login" "$gh/workspace/examples/acme/app/login.html"; fi
  # A plan made by a model (a person's is never healed over, only proposed): MACHINE_MADE=ID.
  if [ -n "${MACHINE_MADE:-}" ]; then
    python3 - "$gh/workspace/examples/acme/e2e/.windup/cache/$MACHINE_MADE.json" <<'PY'
import json, sys
entry = json.load(open(sys.argv[1]))
entry["plan"]["generated_by"] = "openai/gpt-4.1-mini"
entry.pop("reviewed", None)
json.dump(entry, open(sys.argv[1], "w"))
PY
  fi
  cp "$root/action/tests/events/pull_request-same-repo.json" "$gh/workflow/event.json"
  : >"$gh/file_commands/set_output"
  : >"$gh/file_commands/step_summary"
  chmod -R a+rX "$work"
  local env_args=()
  # Every declared input with its default, then the step's `with:` (NAME=VALUE arguments).
  while IFS= read -r kv; do env_args+=(-e "$kv"); done < <(python3 - "$root/action.yml" "$@" <<'PY'
import json, re, sys
# action.yml's inputs: block, read without a YAML library (release.yml runs this on a bare
# runner): `  NAME:` lines, each with a `    default: "..."` line.
block = re.search(r"^inputs:\n(.*?)^\S", open(sys.argv[1]).read(), re.M | re.S).group(1)
values, name = {}, None
for line in block.splitlines():
    if m := re.fullmatch(r"  ([a-z-]+):", line):
        name = m.group(1)
        values[name] = ""
    elif m := re.fullmatch(r'    default: (".*")', line):
        values[name] = json.loads(m.group(1))
assert values, "no inputs in action.yml"
for arg in sys.argv[2:]:
    name, value = arg.split("=", 1)
    assert name in values, f"action.yml declares no input {name}"
    values[name] = value
for name, value in values.items():
    # GitHub upper-cases the name and keeps its dashes.
    print(f"INPUT_{name.upper()}={value}")
PY
  )
  env_args+=(
    -e HOME=/github/home -e CI=true -e GITHUB_ACTIONS=true
    -e GITHUB_WORKSPACE=/github/workspace
    -e GITHUB_EVENT_NAME=pull_request -e GITHUB_EVENT_PATH=/github/workflow/event.json
    -e GITHUB_OUTPUT=/github/file_commands/set_output
    -e GITHUB_STEP_SUMMARY=/github/file_commands/step_summary
    -e GITHUB_REPOSITORY=acme/app -e GITHUB_REPOSITORY_OWNER=acme
    -e GITHUB_RUN_ID=4242 -e GITHUB_RUN_ATTEMPT=1 -e GITHUB_JOB=acme
    -e GITHUB_SHA=fedcba9876543210fedcba9876543210fedcba98 -e GITHUB_REF=refs/pull/7/merge
    -e GITHUB_HEAD_REF=feature/x -e GITHUB_BASE_REF=main
    -e GITHUB_SERVER_URL=https://github.com -e GITHUB_API_URL=https://api.github.com
    -e RUNNER_OS=Linux -e RUNNER_ARCH=X64 -e RUNNER_TEMP=/github/runner_temp
    # The workflow's env: for the example's credentials (e2e/manifest.yaml names them).
    -e "ACME_ADMIN_EMAIL=admin@acme.test" -e "ACME_ADMIN_PASSWORD=correct horse battery staple"
  )
  local t0=$EPOCHREALTIME
  set +e
  local workdir=--workingdir
  if [ "$engine" = docker ]; then workdir=--workdir; fi
  in_image "$workdir" /github/workspace "${env_args[@]}" \
    -v "$gh/workspace:/github/workspace" -v "$gh/workflow:/github/workflow" \
    -v "$gh/file_commands:/github/file_commands" -v "$gh/home:/github/home" -- 2>&1 |
    while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$work/step.raw"
  code=${PIPESTATUS[0]}
  set -e
  # Seconds since the container's start before each line.
  awk -v t0="$t0" '{ t = $1; sub(/^[^ ]+ /, ""); printf "%7.2f %s\n", t - t0, $0 }' "$work/step.raw" >"$work/step.log"
  sed 's/^/    /' "$work/step.log"
  echo "  exit code $code"
}

outputs() { python3 - "$gh/file_commands/set_output" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l]
out, i = {}, 0
while i < len(lines):
    name, delim = lines[i].split("<<", 1)
    j = lines.index(delim, i + 1)
    out[name] = "\n".join(lines[i + 1:j])
    i = j + 1
print(" ".join(f"{k}={v}" for k, v in out.items()))
PY
}
expect() { # expect DESCRIPTION COMMAND...
  if "${@:2}"; then echo "  ok: $1"; else fail "$1"; fi
}
has() { grep -qF -- "$2" "$1"; }

# --- 1. the binaries and the browser in the image -----------------------------------------
say "windup --version in the image"
version="$(in_image -- windup --version)" || fail "windup --version did not run in the image (glibc newer than bookworm's?)"
echo "  $version"
shell="$(in_image -- /usr/lib/chromium/chromium-headless-shell --version 2>/dev/null)" ||
  fail "no /usr/lib/chromium/chromium-headless-shell in the image"
echo "  $shell"

# --- 2. the example, served by start-command inside the container --------------------------
say "examples/acme with start-command, committed plans"
run_step "" \
  "working-directory=examples/acme" \
  "start-command=cd app && exec python3 -m http.server $port --bind 127.0.0.1" \
  "wait-for=$base_url/login.html" "base-url=$base_url" "require-cached=true"
green_log="$(cat "$work/step.log")"
first="$(grep -m1 -E '^ *[0-9.]+ (PASS |FAIL |FLAKY|SKIP ) ' "$work/step.log" || true)"
o="$(outputs)"
echo "  outputs: $o"
scenarios="$(find "$root/examples/acme/e2e/scenarios" -name '*.yaml' | wc -l)"
summary="$gh/file_commands/step_summary"
expect "exit code 0" test "$code" = 0
expect "the app started inside the container" grep -q "Starting the app" <<<"$green_log"
expect "no ::error" test "$(grep -c '::error' <<<"$green_log")" = 0
expect "outputs: $scenarios passed, 0 failed, 0 LLM calls, \$0, $scenarios cache hits" \
  grep -qx "passed=$scenarios failed=0 flaky=0 llm-calls=0 cost-usd=0.000000 cache-hits=$scenarios replanned=0 .*" <<<"$o"
expect "report paths" grep -q "report-json=examples/acme/windup-report/report.json" <<<"$o"
for f in report.json junit.xml report.html; do
  expect "windup-report/$f written in the workspace" test -s "$gh/workspace/examples/acme/windup-report/$f"
done
expect "summary totals" has "$summary" "**$scenarios passed, 0 failed · 0 LLM calls · \$0.0000 · $scenarios cache hits"
expect "summary table" has "$summary" "| \`sign-in\` | ✅ passed | cached | 0 | \$0.0000 |"
expect "summary links the workflow run" has "$summary" "[workflow run](https://github.com/acme/app/actions/runs/4242)"
[ -n "$first" ] || fail "no scenario result in the log"
first_s="$(awk '{ print $1 }' <<<"$first")"
total_s="$(tail -n 1 "$work/step.log" | awk '{ print $1 }')"

# --- 3. a button gone, which healing refuses: the failure is annotated ---------------------
say "a copy with the Sign in button gone"
run_step 's|<button type="submit">Sign in</button>|<p>Signing in is closed today.</p>|' \
  "working-directory=examples/acme" \
  "start-command=cd app && exec python3 -m http.server $port --bind 127.0.0.1" \
  "wait-for=$base_url/login.html" "base-url=$base_url" "require-cached=true" "scenarios=sign-in"
summary="$gh/file_commands/step_summary"
expect "the page was edited" has "$gh/workspace/examples/acme/app/login.html" "Signing in is closed today."
expect "exit code 1 (a scenario failed)" test "$code" = 1
expect "::error on e2e/scenarios/sign-in.yaml" \
  grep -q "::error file=examples/acme/e2e/scenarios/sign-in.yaml,title=selector_not_found at a[0-9]*::sign-in" "$work/step.log"
expect "outputs: 0 passed, 1 failed" grep -q "^passed=0 failed=1 " <<<"$(outputs)"
expect "summary names the failure" has "$summary" "| \`sign-in\` | ❌ failed |"

# --- 4. a renamed button on a model's plan: healed inside the container ---------------------
say "a copy with the Sign in button renamed, its plan made by a model"
MACHINE_MADE=sign-in run_step 's|>Sign in</button>|>Log in</button>|' \
  "working-directory=examples/acme" \
  "start-command=cd app && exec python3 -m http.server $port --bind 127.0.0.1" \
  "wait-for=$base_url/login.html" "base-url=$base_url" "require-cached=true" "scenarios=sign-in"
summary="$gh/file_commands/step_summary"
expect "the page was edited" has "$gh/workspace/examples/acme/app/login.html" ">Log in</button>"
expect "exit code 0 (healed with no LLM)" test "$code" = 0
expect "outputs: 1 passed, 0 failed, 0 LLM calls" grep -q "^passed=1 failed=0 flaky=0 llm-calls=0 " <<<"$(outputs)"
expect "summary counts the heal" has "$summary" "1 healed"
expect "summary names the plan healed" has "$summary" "healed, no LLM"
expect "the healed plan is cached in the workspace" \
  grep -q 'Log in' "$gh/workspace/examples/acme/e2e/.windup/cache/sign-in.json"
heal_s="$(tail -n 1 "$work/step.log" | awk '{ print $1 }')"

# --- the image ----------------------------------------------------------------------------
say "image"
if [ "$engine" = docker ]; then
  size="$(docker image inspect --format '{{.Size}}' "$image")"
else
  # buildah prints the size for people ("890 MB"): the bytes are the mounted root's.
  mnt="$(bah mount "$ctr")"
  size="$(du -sb --exclude=./proc --exclude=./sys --exclude=./dev "$mnt" | cut -f1)"
  bah umount "$ctr" >/dev/null
fi
echo "  $image: $((size / 1000000)) MB uncompressed (the base ${base_ref##*/} included)"
echo "  $version; $shell"
echo "  container start to the first scenario's result: ${first_s} s ($(awk '{ print $2, $3 }' <<<"$first"))"
echo "  whole green step: ${total_s} s for $scenarios scenarios"
echo "  the healed step (one scenario, one heal): ${heal_s} s"
say "image-check passed"
exit 0
}
