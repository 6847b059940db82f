#!/usr/bin/env python3
"""Windup against @playwright/test on a real app, flow by flow, in one run.

`--app django` (the default) starts Django's admin (PyPI django from scripts/fetch-fixtures.sh, the library project of
runner/engine/tests/fixtures/django/site) on a fresh SQLite file, caches the Django project's
hand-written plans, exports them with `windup export --format playwright`, then for each flow,
ROUNDS times, alternating which tool goes first:

- Windup: `manage.py seed`, then `windup run --require-cached --jobs 1 sign-in <flow>`;
- Playwright: `manage.py seed`, then `playwright test <flow>.spec.ts` (its setup project signs
  in first, as the export writes it).

Both sides seed the same way, outside the time measured: the bench drops the project's
`[hooks]` (so a build from before hooks, such as a release of main, runs it too).

The time compared is the flow's own, as each tool reports it: Windup's `duration_ms` of the
scenario minus its hooks' time; Playwright's JSON reporter `duration` of the spec's test. The
sign-in, the seeding and both processes' start-up are left out on both sides. It also prints
each side's whole command's wall time. Prints the median per flow and the ratio
(Windup / Playwright; the target is <= 0.7 on every flow).

`--app jupyterlab` starts JupyterLab (PyPI jupyterlab from scripts/fetch-fixtures.sh, as
bench/jupyterlab_app.py starts it) and runs the five flows of runner/cli/tests/jupyterlab-project
the same way, from their hand-written plans: before every run of either tool, outside the time
measured, every session (and kernel) is shut down and the flow's folder emptied; after it,
outside the time too, JupyterLab's own API must show the flow done (bench/jupyterlab_app.py's
oracle), or the bench stops. There is no setup scenario and no hook: `windup run
--require-cached --jobs 1 <flow>`, `playwright test <flow>.spec.ts`.

    bash scripts/fetch-fixtures.sh
    python3 bench/real-apps.py [--app django|jupyterlab] [--windup target/release/windup] [--rounds 5]
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jupyterlab_app  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "runner/engine/tests/fixtures/django/site"
PROJECT = REPO / "runner/engine/tests/fixtures/django/project"
PASSWORD = "bench secret for the admin"
FLOWS = [
    "add-author-with-books",
    "delete-selected-authors",
    "filter-by-country",
    "mark-authors-inactive",
    "search-authors",
]


def fixtures():
    out = subprocess.run(["bash", str(REPO / "scripts/fetch-fixtures.sh")],
                         check=True, capture_output=True, text=True).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def scenario_sha(text):
    """Scenario::sha of the model crate: the task, hints, start URL and needs (the task a JSON
    string or a plain YAML scalar)."""
    task = re.search(r"^task: (.*)$", text, re.M).group(1).strip()
    task = json.loads(task) if task.startswith('"') else task
    start = re.search(r"^start_url: (.*)$", text, re.M).group(1).strip()
    needs = re.search(r"^needs: \[(.*)\]$", text, re.M)
    h = hashlib.sha256(b"windup-scenario-v1\0" + " ".join(task.split()).encode() + b"\0\0"
                       + start.encode())
    if needs:
        h.update(b"\0needs")
        for n in needs.group(1).split(","):
            h.update(b"\x1f" + n.strip().encode())
    return start, h.hexdigest()


def cache_plans(root):
    cache = root / "e2e/.windup/cache"
    cache.mkdir(parents=True, exist_ok=True)
    for f in sorted((root / "plans").iterdir()):
        plan = json.loads(f.read_text())
        sid = plan["scenario_id"]
        start, sha = scenario_sha((root / f"e2e/scenarios/{sid}.yaml").read_text())
        entry = {"cache_version": "0.2",
                 "key": {"scenario_id": sid, "start_url": start, "scenario_sha": sha},
                 "plan": plan, "status": "active",
                 "stats": {"created_at": "2026-12-01T00:00:00Z",
                           "last_verified_at": "2026-12-01T00:00:00Z",
                           "verified_runs": 1, "last_duration_ms": 1}}
        (cache / f"{sid}.json").write_text(json.dumps(entry))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_django(env, log=subprocess.DEVNULL):
    """Django's runserver on a fresh database; its output (the request log) goes to `log`."""
    manage = [sys.executable, str(SITE / "manage.py")]
    subprocess.run(manage + ["migrate", "--noinput", "-v0"], env=env, check=True)
    subprocess.run(manage + ["createsuperuser", "--noinput", "--username", "admin",
                             "--email", "admin@library.test"],
                   env={**env, "DJANGO_SUPERUSER_PASSWORD": PASSWORD}, check=True,
                   capture_output=True)
    port = free_port()
    server = subprocess.Popen(manage + ["runserver", "--noreload", f"127.0.0.1:{port}"],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/admin/login/", timeout=2)
            return server, base
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit("the Django server did not come up")


def seed(env):
    subprocess.run([sys.executable, str(SITE / "manage.py"), "seed"], env=env, check=True,
                   capture_output=True)


def windup_flow(windup, root, env, flow, prepare, setup=()):
    """`prepare()`, then the flow (after the `setup` scenarios) from its cached plan: the flow's
    own time and the command's wall time, in ms."""
    prepare()
    report = root / "bench-report.json"
    started = time.perf_counter()
    subprocess.run([windup, "run", "--require-cached", "--jobs", "1", *setup, flow,
                    "--report", f"json={report}"], cwd=root, env=env, check=True,
                   capture_output=True)
    wall = (time.perf_counter() - started) * 1000
    s = next(s for s in json.loads(report.read_text())["scenarios"]
             if s["scenario_id"] == flow)
    assert s["status"] == "passed", s
    hooks = sum(h["duration_ms"] for h in s.get("hooks", []))
    return s["duration_ms"] - hooks, wall


def playwright_flow(node_cli, out, env, flow, prepare):
    """`prepare()`, then the flow's exported spec: its test's time and the command's wall time."""
    prepare()
    report = out / "bench-report.json"
    started = time.perf_counter()
    subprocess.run(["node", node_cli, "test", "--config", str(out / "playwright.config.ts"),
                    "--reporter=json", f"{flow}.spec.ts"], cwd=out, check=True,
                   env={**env, "PLAYWRIGHT_JSON_OUTPUT_NAME": str(report)},
                   capture_output=True)
    wall = (time.perf_counter() - started) * 1000
    durations = []

    def walk(suite):
        for spec in suite.get("specs", []):
            if spec["file"].endswith(f"{flow}.spec.ts"):
                for t in spec["tests"]:
                    for r in t["results"]:
                        assert r["status"] == "passed", r
                        durations.append(r["duration"])
        for child in suite.get("suites", []):
            walk(child)

    for suite in json.loads(report.read_text())["suites"]:
        walk(suite)
    assert durations, f"no result for {flow}"
    return durations[-1], wall


def measure(flows, rounds, windup_run, playwright_run, check=None):
    """Each flow `rounds` times by each tool, alternating which goes first (`check(flow, who)`
    after every run, outside the time); per flow the medians of each tool's own time and of
    each command's wall time."""
    rows = []
    for flow in flows:
        w, p, ww, pw = [], [], [], []
        for i in range(rounds):
            runs = [("w", lambda: windup_run(flow)), ("p", lambda: playwright_run(flow))]
            for side, run in (runs if i % 2 == 0 else runs[::-1]):
                flow_ms, wall_ms = run()
                if check:
                    check(flow, "windup" if side == "w" else "playwright")
                (w if side == "w" else p).append(flow_ms)
                (ww if side == "w" else pw).append(wall_ms)
        rows.append((flow, statistics.median(w), statistics.median(p),
                     statistics.median(ww), statistics.median(pw)))
    return rows


def export(windup, root, env, node_modules):
    """The cached plans exported as Playwright specs in root/pw; returns that folder."""
    out = root / "pw"
    out.mkdir()
    (out / "node_modules").symlink_to(node_modules)
    subprocess.run([windup, "export", "--format", "playwright", "--out", "pw"],
                   cwd=root, env=env, check=True, capture_output=True)
    return out


def bench_django(args, tmp, fx, chromium, node_modules, node_cli):
    env = {**os.environ, "PYTHONPATH": fx["DJANGO_PYTHONPATH"],
           "CATALOG_DB": str(tmp / "catalog.sqlite3"), "CATALOG_SITE": str(SITE),
           "DJANGO_ADMIN_PASSWORD": PASSWORD, "CHROMIUM_PATH": chromium}
    env.pop("WINDUP_BASE_URL", None)
    server, base = start_django(env)
    env["BASE_URL"] = base
    try:
        root = tmp / "project"
        shutil.copytree(PROJECT, root)
        (root / "windup.toml").write_text(f'base_url = "{base}"\n')
        cache_plans(root)
        out = export(args.windup, root, env, node_modules)
        return measure(
            FLOWS, args.rounds,
            lambda flow: windup_flow(args.windup, root, env, flow, lambda: seed(env), ["sign-in"]),
            lambda flow: playwright_flow(node_cli, out, env, flow, lambda: seed(env)))
    finally:
        server.kill()
        server.wait()


def bench_jupyterlab(args, tmp, fx, chromium, node_modules, node_cli):
    lab = jupyterlab_app.JupyterLab(fx["JUPYTERLAB_PYTHON"])
    try:
        env = {**os.environ, "CHROMIUM_PATH": chromium, "BASE_URL": lab.base}
        env.pop("WINDUP_BASE_URL", None)
        root = tmp / "project"
        shutil.copytree(jupyterlab_app.PROJECT, root)
        # The project's settings (the loopback-only host resolver, action_ms) under the base URL.
        toml = (root / "windup.toml").read_text()
        (root / "windup.toml").write_text(f'base_url = "{lab.base}"\n\n{toml}')
        cache_plans(root)
        out = export(args.windup, root, env, node_modules)

        def reset(flow):
            return lambda: jupyterlab_app.reset(lab, [flow])

        def check(flow, who):
            agrees, why = jupyterlab_app.oracle(lab, flow)
            if agrees is False:
                sys.exit(f"{flow} by {who}: passed, but JupyterLab says not done: {why}")

        return measure(
            jupyterlab_app.FLOWS, args.rounds,
            lambda flow: windup_flow(args.windup, root, env, flow, reset(flow)),
            lambda flow: playwright_flow(node_cli, out, env, flow, reset(flow)), check)
    finally:
        lab.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", choices=["django", "jupyterlab"], default="django")
    ap.add_argument("--windup", default=str(REPO / "target/debug/windup"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    fx = fixtures()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    node_modules = Path(fx["PLAYWRIGHT_TEST"]).parent.parent
    node_cli = str(node_modules / "@playwright/test/cli.js")
    bench = bench_django if args.app == "django" else bench_jupyterlab
    with tempfile.TemporaryDirectory() as tmp:
        rows = bench(args, Path(tmp), fx, chromium, node_modules, node_cli)
    print(f"{args.app}: windup {args.windup}, {args.rounds} rounds, medians in ms")
    print(f"{'flow':26} {'windup':>8} {'playwright':>10} {'ratio':>6}   "
          f"{'windup wall':>11} {'pw wall':>8}")
    for flow, w, p, ww, pw in rows:
        print(f"{flow:26} {w:8.0f} {p:10.0f} {w / p:6.2f}x  {ww:11.0f} {pw:8.0f}")


if __name__ == "__main__":
    main()
