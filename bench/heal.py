#!/usr/bin/env python3
"""What a one-step heal costs beyond the step itself: the bundled example's archive-project
replayed on its app as it is (the peer: a plain cache hit) and on a copy whose Archive button is
now "Move to archive" (healed with no LLM, the healed plan verified and cached), alternating in
one run, each heal from the original cache. The figure is the heal's extra time over the plain
replay, as the scenario's own duration in the JSON report, medians; with `--before PATH`, the
same for another windup (an older build) in the same run. Never run in CI.

    python3 bench/heal.py [--runs 7] [--windup target/debug/windup] [--before PATH]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile
from pathlib import Path

from common import ACME_CREDENTIALS, chromium, machine_made, static_server, windup_binary

ROOT = Path(__file__).resolve().parent.parent
ACME = ROOT / "examples/acme"
ID = "archive-project"


def project(tmp):
    """The example with its plan for ID marked as made by a model, so a heal replaces it."""
    proj = tmp / "project"
    shutil.copytree(ACME, proj)
    machine_made(proj / f"e2e/.windup/cache/{ID}.json", "bench/heal")
    shutil.copytree(proj / "e2e/.windup", tmp / "cache.orig")
    renamed = tmp / "renamed"
    shutil.copytree(ACME / "app", renamed)
    page = renamed / "projects.html"
    page.write_text(page.read_text().replace("'Archive'", "'Move to archive'"))
    return proj, renamed


def run(windup, proj, base, env, tmp):
    """`windup run ID` from the original cache; the scenario's result."""
    shutil.rmtree(proj / "e2e/.windup")
    shutil.copytree(tmp / "cache.orig", proj / "e2e/.windup")
    report = proj / "r.json"
    r = subprocess.run([windup, "run", ID, "--root", str(proj), "--base-url", base, "-q",
                        "--report", f"json={report}"], env=env, capture_output=True, text=True)
    s = json.loads(report.read_text())["scenarios"][0]
    if s["status"] != "passed":
        sys.exit(f"{ID} did not pass on {base} ({r.returncode}): {s.get('message')}")
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--windup", default=None)
    ap.add_argument("--before", default=None, help="another windup to measure in the same run")
    a = ap.parse_args()
    builds = {"windup": windup_binary(a.windup)}
    if a.before:
        builds["before"] = a.before
    browser = chromium()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WINDUP_")}
    env.update(ACME_CREDENTIALS, WINDUP_CHROMIUM=browser)
    tmp = Path(tempfile.mkdtemp(prefix="windup-heal-"))
    proj, renamed = project(tmp)
    ok_server, ok = static_server(proj / "app")
    renamed_server, broken = static_server(renamed)
    times = {name: {"replay": [], "heal": []} for name in builds}
    try:
        for name, windup in builds.items():  # warm-up: disk cache, first Chromium start
            run(windup, proj, ok, env, tmp)
        for _ in range(a.runs):
            for name, windup in builds.items():
                times[name]["replay"].append(run(windup, proj, ok, env, tmp)["duration_ms"])
                s = run(windup, proj, broken, env, tmp)
                if s["cache"] != "healed":
                    sys.exit(f"{name}: {ID} passed on the renamed app without a heal: {s['cache']}")
                times[name]["heal"].append(s["duration_ms"])
        print(f"{ID}, {a.runs} alternating runs each, scenario duration (JSON report), medians")
        for name, windup in builds.items():
            rp, hl = statistics.median(times[name]["replay"]), statistics.median(times[name]["heal"])
            print(f"  {name:7} ({Path(windup).name}): replay {rp:6.0f} ms, healed {hl:6.0f} ms, "
                  f"the heal costs {hl - rp:6.0f} ms beyond it (ratio {hl / rp:.2f})")
    finally:
        ok_server.terminate(); renamed_server.terminate()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
