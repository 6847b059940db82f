# The GitHub Action's image: `windup-action` (the entrypoint) and `windup`, with Debian's
# Chromium and fonts. Built and pushed by .github/workflows/release.yml; action.yml runs it.
# Nothing is fetched at run time.

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p windup -p windup-action \
 && install -m 0755 target/release/windup target/release/windup-action /usr/local/bin/

FROM debian:bookworm-slim
LABEL org.opencontainers.image.title="windup-action" \
      org.opencontainers.image.description="Windup browser end-to-end tests as a GitHub Action" \
      org.opencontainers.image.source="https://github.com/windup/windup" \
      org.opencontainers.image.licenses="Apache-2.0"
# chromium-headless-shell: the browser the engine drives headless (its flags, --no-sandbox
# included, are the engine's; it finds the shell itself); chromium for `--headed` debugging;
# fonts so pages render as people see them; python3 so start-command can serve a static site.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium chromium-headless-shell ca-certificates fonts-liberation fonts-noto-core fonts-noto-color-emoji \
      python3 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/windup /usr/local/bin/windup-action /usr/local/bin/
# GitHub runs Docker actions as root with the workspace mounted at GITHUB_WORKSPACE: no USER.
# The entrypoint hands start-command's app to `nobody` (65534:65534, in the base image), with no
# token or key in its environment (action/src/app.rs, action/src/environment.rs).
ENTRYPOINT ["/usr/local/bin/windup-action"]
