#!/usr/bin/env python3
"""The oracle's replays for `WINDUP_BENCH_MODE=run bench/real-model.sh`, after the first generations:
every plan Windup verified and cached is replayed, with no LLM call, where its result is judged
by something other than Windup's own verdict.

  - on the app, in the bench project itself (`--require-cached`): a plan that does not replay is
    not a plan that does its task; for MiniWoB, the reward the page's own episode gave during the
    replay (the seeded page sends it to the oracle server, which appends it to --reward-log;
    the log's length is marked before each replay so only that replay's episode is read);
  - for TodoMVC, on each mutant the task's effect depends on (bench/oracle_site.py MUTANTS), each in
    a scratch copy of the project whose base_url is that mutant's server (`--require-cached
    --no-heal`): a replay there never moves or rewrites the project's own cached plan.

Writes RESULTS/replays.json (per task: cached or not, the app replay, the reward, each mutant
replay) and each replay's report and stderr under RESULTS/replays/. bench/oracle-table.py turns it
into the verdicts.

Usage: bench/oracle_replays.py --windup BIN --project DIR --results DIR --reward-log FILE
                               --mutant add=URL --mutant complete=URL --mutant filter=URL ID...
"""
import argparse, json, os, re, shutil, subprocess, sys, time
from pathlib import Path

from oracle_site import mutants_of

BEACON_WAIT_S = 5  # a MiniWoB replay's beacon lands within ms; wait this long before "no reward"


def scratch_copy(project, dst, base_url):
    """A copy of the project (scenarios, config, cache; not its ledger or run reports) pointed
    at another server."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(project, dst, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in ("ledger.jsonl", "runs", "reports")])
    toml = (dst / "windup.toml").read_text()
    toml, n = re.subn(r'(?m)^base_url = ".*"$', f'base_url = "{base_url}"', toml, count=1)
    if n != 1:
        sys.exit(f"oracle_replays: no top-level base_url line in {dst / 'windup.toml'}")
    (dst / "windup.toml").write_text(toml)
    return dst


def replay(windup, root, sid, out, heal):
    """One `windup run ID --require-cached` in root: what its report says of the scenario."""
    out.parent.mkdir(parents=True, exist_ok=True)
    report = out.with_suffix(".json")
    report.unlink(missing_ok=True)
    cmd = [windup, "run", sid, "--root", str(root), "--require-cached", "-j", "1", "-q",
           "--report", f"json={report}"] + ([] if heal else ["--no-heal"])
    # The project's windup.toml says where the app is: an inherited WINDUP_BASE_URL would override it.
    env = {k: v for k, v in os.environ.items() if k not in ("WINDUP_BASE_URL", "WINDUP_CDP_URL")}
    t = time.perf_counter()
    with open(out.with_suffix(".log"), "w") as err:
        p = subprocess.run(cmd, stdout=err, stderr=subprocess.STDOUT, env=env, timeout=900)
    res = {"exit": p.returncode, "wall_s": round(time.perf_counter() - t, 2)}
    try:
        s = json.loads(report.read_text())["scenarios"][0]
    except (OSError, ValueError, LookupError, TypeError):
        res["status"] = "error"
        res["message"] = out.with_suffix(".log").read_text()[-800:]
        return res
    res.update({k: s.get(k) for k in ("status", "failure_class", "failed_action_id", "message", "cache",
                                      "llm_calls", "duration_ms", "heal")})
    res["message"] = (res["message"] or "")[:400] or None
    return res


def rewards_since(log, offset, task):
    """The reward beacons of task appended to the log after offset (waits a little for one)."""
    deadline = time.monotonic() + BEACON_WAIT_S
    while True:
        try:
            with open(log) as f:
                f.seek(offset)
                found = [r for r in map(json.loads, filter(str.strip, f)) if r.get("task") == task]
        except FileNotFoundError:
            found = []
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--windup", required=True)
    ap.add_argument("--project", required=True, type=Path)
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--reward-log", required=True, type=Path)
    ap.add_argument("--mutant", action="append", default=[], metavar="NAME=URL")
    ap.add_argument("ids", nargs="+")
    args = ap.parse_args()
    mutants = dict(m.split("=", 1) for m in args.mutant)
    cache = args.project / "e2e/.windup/cache"
    cached = {sid: (cache / f"{sid}.json").is_file() for sid in args.ids}

    # The scratch copies are taken before any replay, from the plans the first generations cached.
    scratch = {}
    for name in sorted({m for sid in args.ids if cached[sid] for m in mutants_of(sid)}):
        if name not in mutants:
            sys.exit(f"oracle_replays: no --mutant {name}=URL")
        scratch[name] = scratch_copy(args.project, args.results.parent / "scratch" / f"mutant-{name}", mutants[name])

    version = subprocess.run([args.windup, "--version"], capture_output=True, text=True).stdout.strip()
    out = {"replays_version": 1, "windup": args.windup, "windup_version": version, "tasks": {}}
    for sid in args.ids:
        row = {"cached": cached[sid]}
        out["tasks"][sid] = row
        if not cached[sid]:
            continue
        print(f"replay {sid}", file=sys.stderr)
        offset = args.reward_log.stat().st_size if args.reward_log.exists() else 0
        row["app"] = replay(args.windup, args.project, sid, args.results / "replays" / f"{sid}-app", heal=True)
        if sid.startswith("miniwob-"):
            row["rewards"] = rewards_since(args.reward_log, offset, sid.removeprefix("miniwob-"))
        row["mutants"] = {name: replay(args.windup, scratch[name], sid, args.results / "replays" / f"{sid}-{name}",
                                       heal=False)
                          for name in mutants_of(sid)}
    tmp = args.results / ".replays.json.tmp"
    tmp.write_text(json.dumps(out, indent=2) + "\n")
    os.replace(tmp, args.results / "replays.json")


if __name__ == "__main__":
    main()
