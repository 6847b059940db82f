#!/usr/bin/env python3
"""Whole-process replay against its floor (issue 23, part 5): `windup replay` of the TodoMVC plan
vs. Chromium's headless shell doing nothing but start, load the same page and dump its DOM
(`--dump-dom`), alternating in one run, on the same binary with windup's own flags. Then where
the rest goes, from whole processes measured in the same alternation:

  - `windup --version`: the process alone (start-up, no browser);
  - `windup replay` of a one-step plan (a `wait_for` of the page's heading): process, Chromium
    start, CDP set-up, the page load and the in-page engine, one step;
  - `windup replay` of the whole TodoMVC plan (6 steps).

Prints medians, the ratio to the floor (target: at most 1.3x) and the differences. Never run in
CI.

    python3 bench/floor.py [--runs 15] [--windup target/release/windup]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

from common import chromium, fixtures, static_server, timed, windup_binary

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "runner/engine/tests/plans/todomvc.json"
START = "/examples/vanillajs/index.html"
# The flags windup gives a Chromium it starts (runner/browser/src/launch.rs), so the
# floor loads the page the same way.
from suite import CHROMIUM_FLAGS  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--windup", default=None)
    a = ap.parse_args()
    windup = windup_binary(a.windup)
    fx = fixtures()
    browser = chromium()
    env = dict(os.environ, WINDUP_CHROMIUM=browser)
    server, base = static_server(fx["TODOMVC_ROOT"])
    one = json.loads(PLAN.read_text())
    one["actions"] = [{"id": "a1", "type": "wait_for", "target": {"selector": "role=heading[name=\"todos\"]"},
                       "expect": {"visible": "role=heading[name=\"todos\"]"}}]
    tmp = Path(tempfile.mkdtemp(prefix="windup-floor-"))
    one_path = tmp / "one-step.json"
    one_path.write_text(json.dumps(one))
    profile = tmp / "profile"
    cmds = {
        "floor: headless shell --dump-dom": [browser, "--headless", f"--user-data-dir={profile}", *CHROMIUM_FLAGS,
                                             "--dump-dom", base + START.lstrip("/")],
        "windup --version": [windup, "--version"],
        "windup replay, one step": [windup, "replay", str(one_path), "--base-url", base, "-q"],
        "windup replay, TodoMVC plan": [windup, "replay", str(PLAN), "--base-url", base, "-q"],
    }
    try:
        for c in cmds.values():  # warm-up: disk cache, first start
            timed(c, env)
        _, dumped = timed(cmds["floor: headless shell --dump-dom"], env)
        assert "todoapp" in dumped.stdout, "the floor did not load the page"
        times = {k: [] for k in cmds}
        for _ in range(a.runs):
            for k, c in cmds.items():
                times[k].append(timed(c, env)[0])
        med = {k: statistics.median(v) for k, v in times.items()}
        floor = med["floor: headless shell --dump-dom"]
        print(f"{a.runs} alternating runs each, {Path(windup).parent.name} windup, on {browser}")
        for k, v in times.items():
            print(f"  {k:36} median {med[k]:7.0f} ms  (min {min(v):.0f}, max {max(v):.0f})  {med[k] / floor:.2f}x floor")
        full = med["windup replay, TodoMVC plan"]
        print(f"\nratio windup replay / floor = {full / floor:.2f}  (target <= 1.30: {'met' if full / floor <= 1.3 else 'NOT met'})")
        print("where the rest goes (differences of medians):")
        print(f"  process start-up (windup --version)          {med['windup --version']:7.0f} ms")
        print(f"  one-step replay minus the floor              {med['windup replay, one step'] - floor:7.0f} ms"
              "  (CDP set-up, context, in-page engine, one step, shutdown, vs. a bare load)")
        rest = len(json.loads(PLAN.read_text())["actions"]) - 1
        print(f"  the other {rest} steps (full minus one step)      {full - med['windup replay, one step']:7.0f} ms")
    finally:
        server.terminate()
        subprocess.run(["rm", "-rf", str(tmp)])


if __name__ == "__main__":
    main()
