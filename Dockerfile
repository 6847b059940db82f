# The GitHub Action's image: `windup-action` (the entrypoint) and `windup`, with Debian's
# Chromium headless shell and fonts. Nothing is fetched at run time.
#
# No Rust is compiled here: the build context's `dist/` holds `windup` and `windup-action`
# built once on a Debian bookworm host (glibc 2.36, the same as this base), the `windup` the
# release publishes. .github/workflows/release.yml and action.yml build them in a
# `rust:*-bookworm` container; scripts/image-check.sh builds them here and runs the image.
FROM debian:bookworm-slim
LABEL org.opencontainers.image.title="windup-action" \
      org.opencontainers.image.description="Windup browser end-to-end tests as a GitHub Action" \
      org.opencontainers.image.source="https://github.com/windup/action" \
      org.opencontainers.image.licenses="Apache-2.0"
# chromium-headless-shell alone: the engine prefers /usr/lib/chromium/chromium-headless-shell
# for a headless run (runner/browser/src/launch.rs), and a container has no display
# for the full `chromium` (about 290 MB more). Fonts: Liberation (metric-compatible with
# Arial, Times and Courier, what most pages name), DejaVu (broad Latin, Greek, Cyrillic),
# Noto (most other scripts) and Noto Color Emoji. python3 so start-command can serve a static
# site; ca-certificates for HTTPS apps, the dashboard and the GitHub API.
# About 160 MB of the image is Mesa's DRI drivers with LLVM, which the headless shell does not
# use (it renders with its own SwiftShader), pulled in by a hard dependency: chromium-common
# -> x11-utils -> libgl1 -> libglx-mesa0 -> libgl1-mesa-dri. Dropping them would take a forced
# dpkg removal; kept, so apt stays consistent. Measured by scripts/image-check.sh: about 845 MB
# uncompressed on a 78 MB base.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell ca-certificates \
      fonts-liberation fonts-dejavu-core fonts-noto-core fonts-noto-color-emoji \
      python3 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY dist/windup dist/windup-action /usr/local/bin/
# GitHub runs Docker actions as root with the workspace mounted at GITHUB_WORKSPACE: no USER.
# The entrypoint hands start-command's app to `nobody` (65534:65534, in the base image), with no
# token or key in its environment (action/src/app.rs, action/src/environment.rs).
ENTRYPOINT ["/usr/local/bin/windup-action"]
