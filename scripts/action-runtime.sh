#!/usr/bin/env bash
# Assembles the Action image's runtime layout without Docker, for machines that cannot run it:
# the `windup-action` and `windup` binaries, Debian's chromium and its headless shell (installed
# by install-deps.sh), and an entrypoint with the image's environment (Dockerfile: ENTRYPOINT).
#
#   scripts/action-runtime.sh [--prebuilt DIR] [OUT_DIR]
#
# Builds the binaries (debug) unless --prebuilt names a folder that has them (linked from the
# layout, not copied); OUT_DIR defaults
# to target/action-runtime. Prints ENTRYPOINT=<path>: run it with INPUT_* and GITHUB_* set, as
# GitHub runs the container. The Action's integration tests run the entrypoint through it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prebuilt=""
if [ "${1:-}" = "--prebuilt" ]; then
  prebuilt="$2"
  shift 2
fi
out="${1:-$root/target/action-runtime}"
bash "$root/scripts/install-deps.sh" >&2
if [ -z "$prebuilt" ]; then
  (cd "$root" && cargo build -p windup -p windup-action >&2)
  prebuilt="$root/target/debug"
fi
mkdir -p "$out/usr/local/bin"
for bin in windup-action windup; do
  # Linked, not copied: the layout always runs the binaries just built.
  if [ -x "$prebuilt/$bin" ]; then ln -sfn "$(cd "$prebuilt" && pwd)/$bin" "$out/usr/local/bin/$bin"; fi
done
[ -x "$out/usr/local/bin/windup-action" ] || { echo "action-runtime: no windup-action in $prebuilt" >&2; exit 2; }
cat > "$out/entrypoint" <<SH
#!/usr/bin/env bash
# As the image: no WINDUP_CHROMIUM (the engine finds Debian's headless shell), ENTRYPOINT
# windup-action.
unset WINDUP_CHROMIUM
export PATH="$out/usr/local/bin:\$PATH"
exec "$out/usr/local/bin/windup-action" "\$@"
SH
chmod +x "$out/entrypoint"
echo "ENTRYPOINT=$out/entrypoint"
