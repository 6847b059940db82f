#!/usr/bin/env bash
# Makes the base image `debian:bookworm-slim` in buildah's vfs store from Debian's packages, as
# Docker's image is made, when the store lacks it: no registry is reached. Used by
# scripts/image-check.sh (the Action's image) and scripts/install-check.sh (a clean machine).
#
#   scripts/bookworm-base.sh REF     e.g. localhost/debian:bookworm-slim
#
# Prints "in the store" or "made from debootstrap --variant=minbase bookworm".
set -euo pipefail
base_ref="${1:?usage: bookworm-base.sh IMAGE-REF}"
heavy() { nice -n 19 ionice -c3 "$@"; }
bah() { buildah --storage-driver vfs "$@"; }
fail() {
  echo "bookworm-base: FAILED: $*" >&2
  exit 1
}
if bah inspect --type image "$base_ref" >/dev/null 2>&1; then
  echo "in the store"
  exit 0
fi
work="$(mktemp -d /tmp/windup-bookworm-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
heavy debootstrap --variant=minbase bookworm "$rootfs" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
# As Docker's debian:bookworm-slim: bookworm, bookworm-updates and bookworm-security (the
# browser's fixes come from there), on the mirror debootstrap used; no documentation,
# manuals or translations from later packages.
mirror="$(awk '$1 == "deb" { print $2; exit }' "$rootfs/etc/apt/sources.list")"
rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
# What those rules keep out of later packages, out of debootstrap's too (about 45 MB).
find "$rootfs/usr/share/doc" -type f -not -name copyright -delete
find "$rootfs/usr/share/doc" -type d -empty -delete
rm -rf "$rootfs"/usr/share/{man,groff,info,lintian,linda,locale}/*
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
tar --numeric-owner -C "$rootfs" -cf "$work/rootfs.tar" .
rm -rf "$rootfs"
base_ctr="$(bah from scratch)"
bah add "$base_ctr" "$work/rootfs.tar" / >/dev/null
bah config --cmd bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$base_ctr"
bah commit --quiet --rm "$base_ctr" "$base_ref" >/dev/null
rm -f "$work/rootfs.tar"
echo "made from debootstrap --variant=minbase bookworm"
