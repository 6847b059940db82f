#!/usr/bin/env bash
# Tries the one-line install (scripts/install.sh) the way a user on a clean machine would: in a
# fresh container of Debian's `debian:bookworm-slim` (no Rust, nothing of this repository), with
# a copy of a release served over HTTP on 127.0.0.1. Not part of .ci/run (a Debian base image
# and an apt-get in the container take minutes).
#
#   scripts/install-check.sh                                 # target/release/windup
#   WINDUP_BIN=/path/to/windup scripts/install-check.sh      # a binary you already built
#
# 1. Packs WINDUP_BIN as release.yml does (`windup-linux-x64.tar.gz` holding `windup`, and its
#    `.sha256` from sha256sum) in the layout install.sh downloads from
#    (WINDUP_RELEASE_URL/latest/download/ASSET.tar.gz), with install.sh beside it as the release
#    attaches it, and serves it with `python3 -m http.server` on a free port of 127.0.0.1.
# 2. In a fresh container: what bookworm-slim lacks for the install (it has neither curl nor
#    wget: the user's `apt-get install curl` is timed as its own step), then, as the README says,
#    install.sh fetched with curl and run with `sh install.sh`, WINDUP_RELEASE_URL pointing at
#    the served copy; `windup --version`; `windup init` in an empty folder and the files it
#    makes. Then a copy whose archive has one byte changed: refused, nothing installed.
# 3. Prints the time of each step: container start to installed, install.sh alone, init.
#
# Without Docker: Debian's `buildah` with `--storage-driver vfs --isolation chroot` (the
# container shares the host's network, so it reaches the server on 127.0.0.1), as
# scripts/image-check.sh does. No registry is reached: the base image `debian:bookworm-slim` is
# made from Debian's packages with debootstrap when buildah's store lacks it. The container's
# apt-get reaches the Debian mirror. As root, on Debian: apt-get install -y buildah debootstrap.
#
# Environment:
#   WINDUP_BIN   the `windup` binary to release (default target/release/windup), built for
#                glibc 2.36 (Debian bookworm) or older.
#   KEEP_WORK=1  keep the served release copy and the logs, and print where they are.
set -euo pipefail
# The whole script is one block, read before it runs: an edit during a run cannot change it.
{
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base_ref="docker.io/library/debian:bookworm-slim"
started=$SECONDS

heavy() { nice -n 19 ionice -c3 "$@"; }
bah() { buildah --storage-driver vfs "$@"; }
say() { printf '\n== %s (%s s)\n' "$1" "$((SECONDS - started))"; }
fail() {
  echo "install-check: FAILED: $*" >&2
  exit 1
}
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

for tool in buildah debootstrap python3 sha256sum tar; do
  command -v "$tool" >/dev/null || fail "no $tool; fix: apt-get install -y buildah debootstrap python3"
done
[ "$(id -u)" = 0 ] || fail "buildah's vfs store and debootstrap need root here; fix: run as root"
case "$(uname -m)" in
  x86_64) asset=windup-linux-x64 ;;
  aarch64) asset=windup-linux-arm64 ;;
  *) fail "no release archive for $(uname -m)" ;;
esac
bin="${WINDUP_BIN:-$root/target/release/windup}"
[ -x "$bin" ] || fail "no executable $bin; fix: cargo build --release -p windup, or set WINDUP_BIN"

work="$(mktemp -d /tmp/windup-install-check.XXXXXX)"
ctr=""
server=""
cleanup() {
  if [ -n "$ctr" ]; then bah rm "$ctr" >/dev/null 2>&1 || true; fi
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "install-check: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- 1. the release, served ---------------------------------------------------------------
say "release $asset from $bin"
version="$("$bin" --version)" || fail "$bin --version did not run here"
echo "  $version"
# release.yml: tar -C target/release -czf "dist/$ASSET.tar.gz" windup, then sha256sum in dist/.
stage="$work/stage"
mkdir -p "$stage"
cp "$bin" "$stage/windup"
chmod 0755 "$stage/windup"
# Two copies of the releases: `good`, and `tampered`, whose archive has one byte changed and
# keeps the good archive's .sha256.
for copy in good tampered; do
  dl="$work/srv/$copy/latest/download"
  mkdir -p "$dl"
  tar -C "$stage" -czf "$dl/$asset.tar.gz" windup
  (cd "$dl" && sha256sum "$asset.tar.gz" >"$asset.tar.gz.sha256")
  cp "$root/scripts/install.sh" "$dl/install.sh"
done
python3 - "$work/srv/tampered/latest/download/$asset.tar.gz" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0x01
open(path, "wb").write(data)
PY
if (cd "$work/srv/tampered/latest/download" && sha256sum -c --quiet "$asset.tar.gz.sha256") >/dev/null 2>&1; then
  fail "the tampered archive still matches its checksum"
fi
echo "  $(wc -c <"$work/srv/good/latest/download/$asset.tar.gz") bytes, sha256 $(cut -c1-16 "$work/srv/good/latest/download/$asset.tar.gz.sha256")…"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/srv" >"$work/http.log" 2>&1 &
server=$!
url="http://127.0.0.1:$port"
for _ in $(seq 50); do
  if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1])" "$url/good/latest/download/$asset.tar.gz.sha256" 2>/dev/null; then break; fi
  sleep 0.1
done
python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1])" "$url/good/latest/download/$asset.tar.gz.sha256" ||
  fail "the release copy is not served on $url"
echo "  served on $url (good/ and tampered/)"

# --- the base image -----------------------------------------------------------------------
say "base image $base_ref"
if bah inspect --type image "$base_ref" >/dev/null 2>&1; then
  echo "  in the store"
else
  echo "  $(bash "$root/scripts/bookworm-base.sh" "$base_ref")"
fi

# A command in the container, as root in /root with a login's PATH; its output indented.
in_ctr() {
  bah run --isolation chroot --workingdir /root -e HOME=/root "$ctr" -- "$@" 2>&1 </dev/null | sed 's/^/    /'
  return "${PIPESTATUS[0]}"
}
expect() { # expect DESCRIPTION COMMAND...
  if "${@:2}"; then echo "  ok: $1"; else fail "$1"; fi
}

# --- 2. a fresh container: the install ----------------------------------------------------
say "a fresh container of $base_ref"
t_start="$(now)"
ctr="$(bah from --pull=never --quiet "$base_ref")"
# One look at the container: what it is, that nothing of ours is there, and the tools
# install.sh runs (uname, ldd, grep, head, mktemp, sha256sum, tar with gzip, cp, chmod, mv),
# curl or wget to download.
bah run --isolation chroot "$ctr" -- sh -c '
  . /etc/os-release; echo "$PRETTY_NAME, $(uname -m), $(ldd --version | head -n 1)"
  for t in cargo rustc windup; do if command -v $t >/dev/null; then echo "ours: $t"; fi; done
  for t in uname ldd grep head mktemp sha256sum tar gzip cp chmod mv; do
    command -v $t >/dev/null || echo "missing: $t"
  done
  for t in curl wget; do if command -v $t >/dev/null; then echo "downloader: $t"; fi; done
' >"$work/probe.log" 2>&1 </dev/null || { cat "$work/probe.log" >&2; fail "the container does not start (buildah run --isolation chroot)"; }
sed 's/^/    /' "$work/probe.log"
if grep -q '^ours:' "$work/probe.log"; then fail "the base image is not clean: it has $(grep '^ours:' "$work/probe.log" | cut -d' ' -f2 | xargs)"; fi
echo "  ok: no cargo, rustc or windup in the container"
if grep -q '^missing:' "$work/probe.log"; then fail "bookworm-slim lacks what install.sh runs: $(grep '^missing:' "$work/probe.log" | cut -d' ' -f2 | xargs)"; fi
echo "  ok: the tools install.sh runs, but a downloader, are in bookworm-slim"
if grep -q '^downloader:' "$work/probe.log"; then
  fetcher_s=0
  echo "  the base has a downloader"
else
  # Docker's bookworm-slim has neither curl nor wget: a user apt-gets curl first (with the CA
  # certificates that https://github.com needs).
  echo "  bookworm-slim has neither curl nor wget: apt-get install curl ca-certificates, as a user must"
  t0="$(now)"
  in_ctr sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl ca-certificates >/dev/null' >"$work/apt.log" 2>&1 ||
    { tail -20 "$work/apt.log" >&2; fail "apt-get install curl in the container (does the host reach the Debian mirror?)"; }
  fetcher_s="$(since "$t0")"
  echo "  ok: curl installed (${fetcher_s} s)"
fi

say "install.sh in the container, WINDUP_RELEASE_URL=$url/good"
# The container shares the host's network (chroot isolation): the server on 127.0.0.1 is the
# host's.
in_ctr curl -fsS -o /root/install.sh "$url/good/latest/download/install.sh" ||
  fail "the container cannot reach $url (no shared network?)"
echo "  ok: install.sh downloaded from the host's 127.0.0.1"
t0="$(now)"
in_ctr env WINDUP_RELEASE_URL="$url/good" sh install.sh | tee "$work/install.log" || fail "sh install.sh failed"
install_s="$(since "$t0")"
installed_s="$(since "$t_start")"
expect "install.sh says it installed $version" grep -qF "installed $version in /root/.local/bin/windup" "$work/install.log"
# root's PATH in Debian has no ~/.local/bin: install.sh says so.
expect "install.sh names ~/.local/bin for PATH" grep -qF "add /root/.local/bin to your PATH" "$work/install.log"
got="$(in_ctr env PATH="/root/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" windup --version)" ||
  fail "windup --version did not run in the container (glibc newer than bookworm's?)"
echo "$got"
expect "windup --version is $version" test "$(echo "$got" | sed 's/^ *//')" = "$version"
expect "the binary is the one released" cmp -s "$bin" "$(bah mount "$ctr")/root/.local/bin/windup"
bah umount "$ctr" >/dev/null

say "windup init in an empty folder"
t0="$(now)"
in_ctr sh -c 'mkdir /root/app && cd /root/app && /root/.local/bin/windup init' || fail "windup init failed"
init_s="$(since "$t0")"
mnt="$(bah mount "$ctr")"
for f in windup.toml e2e/scenarios/home-page.yaml e2e/manifest.yaml .gitignore; do
  expect "init made $f" test -s "$mnt/root/app/$f"
done
expect "windup.toml names the base URL" grep -q '127.0.0.1:3000' "$mnt/root/app/windup.toml"
bah umount "$ctr" >/dev/null

# --- a tampered archive: refused, nothing installed ---------------------------------------
say "install.sh with a tampered archive, WINDUP_RELEASE_URL=$url/tampered"
set +e
in_ctr env WINDUP_RELEASE_URL="$url/tampered" WINDUP_INSTALL_DIR=/root/tampered-bin sh install.sh >"$work/tampered.log" 2>&1
code=$?
# buildah's own lines about the exit status are no part of what the user sees.
sed -i '/subprocess exited with status\|Error: exit status/d' "$work/tampered.log"
set -e
cat "$work/tampered.log"
expect "install.sh exits non-zero" test "$code" != 0
expect "it names the checksum" grep -qF "$asset.tar.gz does not match its published SHA-256; nothing was installed" "$work/tampered.log"
mnt="$(bah mount "$ctr")"
expect "nothing in WINDUP_INSTALL_DIR" test ! -e "$mnt/root/tampered-bin/windup" -a ! -e "$mnt/root/tampered-bin/windup.new"
bah umount "$ctr" >/dev/null

say "install-check passed"
echo "  $version ($asset) on $base_ref, served from $url"
echo "  apt-get install curl ca-certificates (bookworm-slim has no downloader): ${fetcher_s} s"
echo "  container start to installed (apt-get, download, install.sh): ${installed_s} s"
echo "  install.sh alone: ${install_s} s"
echo "  windup init: ${init_s} s"
exit 0
}
