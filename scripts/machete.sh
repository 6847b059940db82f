#!/usr/bin/env bash
# Unused dependencies: cargo-machete (pinned; a debug build installs in about a minute on 2 cores
# and scans this workspace in well under a second). Dependencies it cannot see used (a derive that
# needs a crate by name) are listed in `[package.metadata.cargo-machete] ignored` with the reason.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version="0.9.2"
if ! cargo machete --version 2>/dev/null | grep -q "$version"; then
  cargo install --locked --debug --quiet cargo-machete --version "$version"
fi
cargo machete
