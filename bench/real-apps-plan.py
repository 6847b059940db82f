#!/usr/bin/env python3
"""First plans on a real app by a real local model, judged by the app's own record.

Django's admin (the project of runner/engine/tests/fixtures/django, as bench/real-apps.py starts
it): the sign-in setup keeps its hand-written plan; each flow is planned from its task alone
(`windup run FLOW`, no cached plan) by the model behind --llm-url, once per round, on a freshly
seeded catalogue. The verdict Windup gives is then judged by Django, not by Windup:

- the catalogue as `manage.py dumpdata` writes it must show the flow's effect (added, deleted,
  marked inactive) or, for a flow that only reads, be unchanged;
- the server's own request log must show the reads the task asks for (the search for Lem, the
  country filters), answered 200.

A run Windup calls passed that Django disagrees with is a false green. Prints one line per
flow and round and the totals. Run by `WINDUP_BENCH_MODE=real-apps bench/real-model.sh`, which
builds and starts the local model; by hand:

    python3 bench/real-apps-plan.py --windup target/release/windup \\
        --llm-url http://127.0.0.1:18080/v1 --model qwen2.5-coder-1.5b-instruct-q4_k_m
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("real_apps", REPO / "bench/real-apps.py")
real_apps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(real_apps)

SEED = [
    "Italo Calvino|IT|True|Invisible Cities|The Baron in the Trees",
    "Octavia E. Butler|US|True|Kindred",
    "Stanisław Lem|PL|True|Solaris|The Cyberiad",
    "Ursula K. Le Guin|US|True|The Dispossessed",
]


def expected(flow):
    """The catalogue after the flow, and the requests (path and query pattern) it must make."""
    if flow == "add-author-with-books":
        rows = SEED[:1] + ["N. K. Jemisin|US|True|The Fifth Season|The Obelisk Gate|The Stone Sky"] + SEED[1:]
        return rows, []
    if flow == "delete-selected-authors":
        return SEED[1:], []
    if flow == "mark-authors-inactive":
        rows = list(SEED)
        rows[1] = "Octavia E. Butler|US|False|Kindred"
        rows[3] = "Ursula K. Le Guin|US|False|The Dispossessed"
        return rows, [r"/admin/catalog/author/\?.*active__exact=0"]
    if flow == "search-authors":
        return SEED, [r"/admin/catalog/author/\?.*q=Lem"]
    if flow == "filter-by-country":
        return SEED, [r"/admin/catalog/author/\?.*country__exact=PL",
                      r"/admin/catalog/author/\?.*country__exact=US"]
    raise SystemExit(f"no oracle for {flow}")


def catalogue(env):
    out = subprocess.run([sys.executable, str(real_apps.SITE / "manage.py"), "dumpdata", "catalog"],
                         env=env, check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)
    authors = sorted((f"{r['fields']['name']}|{r['fields']['country']}|{r['fields']['active']}", r["pk"])
                     for r in rows if r["model"] == "catalog.author")
    lines = []
    for line, pk in authors:
        books = sorted(r["fields"]["title"] for r in rows
                       if r["model"] == "catalog.book" and r["fields"]["author"] == pk)
        lines.append("|".join([line] + books))
    return lines


def served(log_path, since):
    """The requests the server answered 200 since byte `since` of its log: `GET /path?query`."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        f.seek(since)
        text = f.read()
    return re.findall(r'"GET ([^ ]+) HTTP/[0-9.]+" 200', text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--windup", default=str(REPO / "target/debug/windup"))
    ap.add_argument("--llm-url", required=True, help="an OpenAI-compatible base URL (…/v1)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--flows", nargs="*", default=real_apps.FLOWS)
    args = ap.parse_args()
    args.windup = str(Path(args.windup).resolve())
    fx = real_apps.fixtures()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "PYTHONPATH": fx["DJANGO_PYTHONPATH"],
               "CATALOG_DB": str(tmp / "catalog.sqlite3"), "CATALOG_SITE": str(real_apps.SITE),
               "DJANGO_ADMIN_PASSWORD": real_apps.PASSWORD}
        env.pop("WINDUP_BASE_URL", None)
        log_path = tmp / "server.log"
        server, base = real_apps.start_django(env, open(log_path, "w"))
        totals = {"runs": 0, "passed": 0, "oracle": 0, "false_green": 0, "calls": 0}
        try:
            for flow in args.flows:
                for rnd in range(args.rounds):
                    root = tmp / f"project-{flow}-{rnd}"
                    shutil.copytree(real_apps.PROJECT, root)
                    (root / "windup.toml").write_text(project_toml(base, args))
                    real_apps.cache_plans(root)
                    cache = root / "e2e/.windup/cache"
                    for f in cache.iterdir():
                        if f.name != "sign-in.json":
                            f.unlink()
                    real_apps.seed(env)
                    since = log_path.stat().st_size
                    report = root / "report.json"
                    started = time.perf_counter()
                    run = subprocess.run([args.windup, "run", "--jobs", "1", flow,
                                          "--report", f"json={report}", "--no-html-report"],
                                         cwd=root, env=env, capture_output=True, text=True)
                    wall = time.perf_counter() - started
                    s = next((s for s in json.loads(report.read_text())["scenarios"]
                              if s["scenario_id"] == flow), None) if report.exists() else None
                    status = s["status"] if s else f"no report (exit {run.returncode})"
                    rows, reads = expected(flow)
                    got = catalogue(env)
                    requests = served(log_path, since)
                    missing = [p for p in reads if not any(re.search(p, r) for r in requests)]
                    agrees = got == rows and not missing
                    passed = status == "passed"
                    totals["runs"] += 1
                    totals["passed"] += passed
                    totals["oracle"] += agrees
                    totals["false_green"] += passed and not agrees
                    totals["calls"] += (s or {}).get("llm_calls", 0)
                    why = "" if agrees else (
                        f" (catalogue {'differs' if got != rows else 'as expected'}"
                        f"{'; no request for ' + ', '.join(missing) if missing else ''})")
                    failure = "" if passed or not s else f" [{s.get('failure_class')}: {(s.get('message') or '')[:120]}]"
                    print(f"{flow} round {rnd + 1}: windup {status}{failure}; django "
                          f"{'agrees' if agrees else 'says not done'}{why}; "
                          f"{(s or {}).get('llm_calls', 0)} calls, {wall:.0f} s", flush=True)
        finally:
            server.kill()
        print(f"\n{totals['runs']} first plans: {totals['passed']} passed by windup, "
              f"{totals['oracle']} done as Django records it, "
              f"{totals['false_green']} false greens; {totals['calls']} model calls")
        return 1 if totals["false_green"] else 0


def project_toml(base, args):
    return f'''base_url = "{base}"

[hooks]
before_each = 'python3 "$CATALOG_SITE/manage.py" seed'
timeout_ms = 30000
env = ["PYTHONPATH", "CATALOG_DB", "CATALOG_SITE"]

[timeouts]
action_ms = 5000

[providers.local]
kind = "openai"
model = "{args.model}"
base_url = "{args.llm_url}"
timeout_ms = 600000
max_retries = 1
strict = false

[planner]
page_chars = 2400

[prices."{args.model}"]
input_usd_per_mtok = 0
output_usd_per_mtok = 0
'''


if __name__ == "__main__":
    sys.exit(main())
