#!/usr/bin/env python3
"""Replay speed: `windup replay` of the TodoMVC plan vs. a playwright-core script doing the same
steps on the same Chromium (the headless shell when installed, as windup picks; $CHROMIUM to
choose), both as whole processes, alternating in one run; then warm replays
(browser already up) of windup (`windup run` over K copies of the scenario) vs. the same script
looping K times in one browser. Prints medians and ratios. Never run in CI.

    python3 bench/replay.py [--runs 15] [--warm 20] [--windup target/release/windup]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

from common import chromium, fixtures, static_server, timed, windup_binary

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "runner/engine/tests/plans/todomvc.json"
START = "/examples/vanillajs/index.html"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--windup", default=None)
    a = ap.parse_args()
    windup = windup_binary(a.windup)
    fx = fixtures()
    browser = chromium()
    env = dict(os.environ, PLAYWRIGHT_CORE_DIR=fx["PLAYWRIGHT_CORE"], CHROMIUM=browser, WINDUP_CHROMIUM=browser)
    print(f"both drive {browser}")
    server, base = static_server(fx["TODOMVC_ROOT"])
    pw = ["node", str(ROOT / "bench/playwright/todomvc.mjs"), base, START]
    wu = [windup, "replay", str(PLAN), "--base-url", base, "-q"]
    try:
        # Warm-up of both (disk cache, first Chromium start).
        timed(wu, env); timed(pw, env)
        w, p = [], []
        for _ in range(a.runs):
            w.append(timed(wu, env)[0]); p.append(timed(pw, env)[0])
        mw, mp = statistics.median(w), statistics.median(p)
        print(f"whole process, {a.runs} alternating runs each ({Path(windup).parent.name} windup)")
        print(f"  windup replay     median {mw:7.0f} ms  (min {min(w):.0f}, max {max(w):.0f})")
        print(f"  playwright-core   median {mp:7.0f} ms  (min {min(p):.0f}, max {max(p):.0f})")
        print(f"  ratio windup/playwright = {mw / mp:.2f}  (target <= 0.70)")

        # Warm: a project with K copies of the scenario, each with its verified plan.
        proj = Path(tempfile.mkdtemp(prefix="windup-bench-"))
        (proj / "e2e/scenarios").mkdir(parents=True)
        plan = json.loads(PLAN.read_text())
        for i in range(a.warm):
            sid = f"todo-{i:03d}"
            (proj / "e2e/scenarios" / f"{sid}.yaml").write_text(
                f"id: {sid}\ntask: {json.dumps(plan['task'])}\nstart_url: {START}\n")
            plan_i = dict(plan, scenario_id=sid, start_url=START)
            pf = proj / f"{sid}.plan.json"; pf.write_text(json.dumps(plan_i))
            timed([windup, "replay", str(pf), "--save", "--root", str(proj), "--base-url", base, "-q"], env)
        dt, _ = timed([windup, "run", "--root", str(proj), "--base-url", base, "-q",
                       "--report", f"json={proj}/r.json"], env)
        rep = json.loads((proj / "r.json").read_text())
        assert rep["totals"]["passed"] == a.warm and rep["totals"]["cache_hits"] == a.warm, rep["totals"]
        per = [s["duration_ms"] for s in rep["scenarios"]]
        wall_per = rep["totals"]["duration_ms"] / a.warm
        _, r = timed(pw[:4] + ["--warm", str(a.warm)], env)
        pw_per = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"\nwarm replays, browser already up, {a.warm} scenarios")
        print(f"  windup run        median {statistics.median(per):5.0f} ms per scenario executing, "
              f"{wall_per:.0f} ms per scenario wall (with context set-up), whole process {dt:.0f} ms")
        print(f"  playwright-core   median {statistics.median(pw_per):5.0f} ms per flow (with context set-up)")
        print(f"  ratio windup/playwright (wall per scenario) = {wall_per / statistics.median(pw_per):.2f}  (target: under 300 ms per warm replay)")
        shutil.rmtree(proj)
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
