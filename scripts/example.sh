#!/usr/bin/env bash
# Replays the bundled example (examples/acme) from its committed, verified plans: no API key,
# no LLM call. Installs Chromium if missing, builds windup, serves the app on a free port.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh
# Cargo shows its progress: the first build takes minutes on a small machine.
cargo build -p windup
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory examples/acme/app >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done
# The demo account of the example app. Real projects keep credentials in .env.local or CI secrets.
export ACME_ADMIN_EMAIL="admin@acme.test"
export ACME_ADMIN_PASSWORD="correct horse battery staple"
./target/debug/windup run --root examples/acme --base-url "http://127.0.0.1:$port" \
  --report json=target/example-report.json "$@"
