#!/bin/sh
# Installs `windup` from a GitHub release of windup/action: picks the archive for this machine
# (Linux x64 or arm64 with glibc 2.36 or newer, macOS arm64), checks it against its published
# SHA-256, and puts the binary in $WINDUP_INSTALL_DIR (default ~/.local/bin). Nothing is
# installed when the checksum does not match.
#
#   sh install.sh            the latest release
#   sh install.sh v1.2.3     a given one
#
# WINDUP_RELEASE_URL points it at another copy of the releases (a mirror, the tests).
set -eu

version="${1:-latest}"
base="${WINDUP_RELEASE_URL:-https://github.com/windup/action/releases}"
dir="${WINDUP_INSTALL_DIR:-$HOME/.local/bin}"

fail() {
  echo "install.sh: $1" >&2
  exit "${2:-1}"
}

os="$(uname -s)"
arch="$(uname -m)"
case "$os/$arch" in
  Linux/x86_64) asset=windup-linux-x64 ;;
  Linux/aarch64 | Linux/arm64) asset=windup-linux-arm64 ;;
  Darwin/arm64) asset=windup-macos-arm64 ;;
  *) fail "no release archive for $os/$arch; build it instead: cargo install --locked --git https://github.com/windup/action windup" 2 ;;
esac

if [ "$os" = Linux ]; then
  # The Linux binaries are built on Debian 12: glibc 2.36 or newer.
  glibc="$(ldd --version 2>/dev/null | head -n 1 | grep -o '[0-9][0-9]*\.[0-9][0-9]*$' || true)"
  major="${glibc%%.*}"
  minor="${glibc#*.}"
  if [ -z "$glibc" ] || [ "$major" -lt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -lt 36 ]; }; then
    fail "the release binaries need glibc 2.36 or newer (this machine: ${glibc:-unknown}); build it instead: cargo install --locked --git https://github.com/windup/action windup" 2
  fi
fi

case "$version" in
  latest) url="$base/latest/download/$asset.tar.gz" ;;
  *) url="$base/download/$version/$asset.tar.gz" ;;
esac

fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "neither curl nor wget is installed" 2
  fi
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fetch "$url" "$tmp/$asset.tar.gz" || fail "could not download $url"
fetch "$url.sha256" "$tmp/$asset.tar.gz.sha256" || fail "could not download $url.sha256"
if command -v sha256sum >/dev/null 2>&1; then
  (cd "$tmp" && sha256sum -c --quiet "$asset.tar.gz.sha256") >/dev/null 2>&1 ||
    fail "$asset.tar.gz does not match its published SHA-256; nothing was installed"
else
  (cd "$tmp" && shasum -a 256 -c "$asset.tar.gz.sha256") >/dev/null 2>&1 ||
    fail "$asset.tar.gz does not match its published SHA-256; nothing was installed"
fi
tar -xzf "$tmp/$asset.tar.gz" -C "$tmp" windup || fail "$asset.tar.gz holds no windup binary"
mkdir -p "$dir"
cp "$tmp/windup" "$dir/windup.new"
chmod 0755 "$dir/windup.new"
mv "$dir/windup.new" "$dir/windup"
echo "installed $("$dir/windup" --version) in $dir/windup"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "add $dir to your PATH to run it as windup" ;;
esac
