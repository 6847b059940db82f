#!/usr/bin/env python3
"""First plans on a real app by a real local model, judged by the app's own record.

`--app django` (the default): Django's admin (the project of runner/engine/tests/fixtures/django,
as bench/real-apps.py starts it): the sign-in setup keeps its hand-written plan; each flow is
planned from its task alone (`windup run FLOW`, no cached plan) by the model behind --llm-url,
once per round, on a freshly seeded catalogue. The verdict Windup gives is then judged by
Django, not by Windup:

- the catalogue as `manage.py dumpdata` writes it must show the flow's effect (added, deleted,
  marked inactive) or, for a flow that only reads, be unchanged;
- the server's own request log must show the reads the task asks for (the search for Lem, the
  country filters), answered 200.

`--app jupyterlab`: JupyterLab (bench/jupyterlab_app.py, as bench/real-apps.py starts it) and
the five flows of runner/cli/tests/jupyterlab-project, every one planned by the model (there is
no setup scenario), under the project's own settings (the loopback-only host resolver,
`action_ms`). Before each run every session (and kernel) is shut down and the flow's folder
emptied; after it, JupyterLab's REST API judges: the folders and files it lists, the notebook's
cell, output `8` and kernelspec, the new notebook's kernel session. The menus flow leaves no
record on the server: JupyterLab "cannot tell" (unless something was created, a "not done"),
counted apart from the false greens.

A run Windup calls passed that the app disagrees with is a false green (exit 1 when there is
one). Prints one line per flow and round and the totals. Run by
`WINDUP_BENCH_MODE=real-apps bench/real-model.sh [--app jupyterlab] [--flows …]`, which builds
and starts the local model; by hand:

    python3 bench/real-apps-plan.py [--app django|jupyterlab] --windup target/release/windup \\
        --llm-url http://127.0.0.1:18080/v1 --model qwen2.5-coder-1.5b-instruct-q4_k_m

`--keep DIR` copies each run's report and its project's e2e/.windup (ledger, plans, traces; not
the signed-in session) to DIR/<flow>-<round>.
`--cached` is a self-check of the judging, with no model: it keeps the hand-written plans
instead of deleting them, so every flow should pass and the app agree (the model settings are
still written, never called):

    python3 bench/real-apps-plan.py --app jupyterlab --llm-url http://127.0.0.1:9/v1 \\
        --model none --cached
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
jupyterlab_app = real_apps.jupyterlab_app

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


class Django:
    """Django's admin on a fresh SQLite file; the sign-in setup keeps its hand-written plan."""
    name, record, flows, project, keep = "django", "Django", real_apps.FLOWS, real_apps.PROJECT, {"sign-in"}

    def __init__(self, fx, tmp):
        self.env = {**os.environ, "PYTHONPATH": fx["DJANGO_PYTHONPATH"],
                    "CATALOG_DB": str(tmp / "catalog.sqlite3"), "CATALOG_SITE": str(real_apps.SITE),
                    "DJANGO_ADMIN_PASSWORD": real_apps.PASSWORD}
        self.env.pop("WINDUP_BASE_URL", None)
        self.log_path = tmp / "server.log"
        self.server, self.base = real_apps.start_django(self.env, open(self.log_path, "w"))
        self.since = 0

    def toml(self, args):
        return project_toml(self.base, args)

    def prepare(self, flow):
        real_apps.seed(self.env)
        self.since = self.log_path.stat().st_size

    def judge(self, flow):
        rows, reads = expected(flow)
        got = catalogue(self.env)
        requests = served(self.log_path, self.since)
        missing = [p for p in reads if not any(re.search(p, r) for r in requests)]
        if got == rows and not missing:
            return True, ""
        return False, (f"catalogue {'differs' if got != rows else 'as expected'}"
                       f"{'; no request for ' + ', '.join(missing) if missing else ''}")

    def stop(self):
        self.server.kill()


class JupyterLab:
    """JupyterLab (bench/jupyterlab_app.py); no setup scenario, so every plan is the model's."""
    name, record, flows, project, keep = ("jupyterlab", "JupyterLab", jupyterlab_app.FLOWS,
                                          jupyterlab_app.PROJECT, set())

    def __init__(self, fx, tmp):
        self.lab = jupyterlab_app.JupyterLab(fx["JUPYTERLAB_PYTHON"])
        self.env = dict(os.environ)
        self.env.pop("WINDUP_BASE_URL", None)

    def toml(self, args):
        # The project's settings (the loopback-only host resolver, action_ms), then the model.
        project = (self.project / "windup.toml").read_text()
        return f'base_url = "{self.lab.base}"\n\n{project}\n{provider_toml(args)}'

    def prepare(self, flow):
        jupyterlab_app.reset(self.lab, [flow])

    def judge(self, flow):
        return jupyterlab_app.oracle(self.lab, flow)

    def stop(self):
        self.lab.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", choices=["django", "jupyterlab"], default="django")
    ap.add_argument("--windup", default=str(REPO / "target/debug/windup"))
    ap.add_argument("--llm-url", required=True, help="an OpenAI-compatible base URL (…/v1)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--flows", nargs="*", help="default: all the app's flows")
    ap.add_argument("--cached", action="store_true",
                    help="a self-check of the oracle: keep the hand-written plans (no model call)")
    ap.add_argument("--keep", metavar="DIR",
                    help="copy each run's report, ledger and plans (the project's e2e/.windup "
                         "and report.json) to DIR/<flow>-<round>, for reading what was planned")
    args = ap.parse_args()
    App = Django if args.app == "django" else JupyterLab
    flows = args.flows or App.flows
    unknown = [f for f in flows if f not in App.flows]
    if unknown:
        ap.error(f"--flows: {', '.join(unknown)} not a flow of {args.app} ({', '.join(App.flows)})")
    args.windup = str(Path(args.windup).resolve())
    fx = real_apps.fixtures()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        app = App(fx, tmp)
        totals = {"runs": 0, "passed": 0, "oracle": 0, "false_green": 0, "calls": 0,
                  "unjudged": 0}
        try:
            for flow in flows:
                for rnd in range(args.rounds):
                    root = tmp / f"project-{flow}-{rnd}"
                    shutil.copytree(app.project, root)
                    (root / "windup.toml").write_text(app.toml(args))
                    real_apps.cache_plans(root)
                    cache = root / "e2e/.windup/cache"
                    for f in cache.iterdir():
                        if not args.cached and f.stem not in app.keep:
                            f.unlink()
                    app.prepare(flow)
                    report = root / "report.json"
                    started = time.perf_counter()
                    run = subprocess.run([args.windup, "run", "--jobs", "1", flow,
                                          "--report", f"json={report}", "--no-html-report"],
                                         cwd=root, env=app.env, capture_output=True, text=True)
                    wall = time.perf_counter() - started
                    s = next((s for s in json.loads(report.read_text())["scenarios"]
                              if s["scenario_id"] == flow), None) if report.exists() else None
                    status = s["status"] if s else f"no report (exit {run.returncode})"
                    agrees, why = app.judge(flow)
                    passed = status == "passed"
                    totals["runs"] += 1
                    totals["passed"] += passed
                    totals["oracle"] += agrees is True
                    totals["unjudged"] += agrees is None
                    totals["false_green"] += passed and agrees is False
                    totals["calls"] += (s or {}).get("llm_calls", 0)
                    verdict = {True: "agrees", False: "says not done", None: "cannot tell"}[agrees]
                    why = f" ({why})" if why else ""
                    failure = "" if passed or not s else f" [{s.get('failure_class')}: {s.get('message') or ''}]"
                    print(f"{flow} round {rnd + 1}: windup {status}{failure}; {app.name} "
                          f"{verdict}{why}; "
                          f"{(s or {}).get('llm_calls', 0)} calls, {wall:.0f} s", flush=True)
                    if args.keep:
                        kept = Path(args.keep) / f"{flow}-{rnd + 1}"
                        shutil.rmtree(kept, ignore_errors=True)
                        # Not the signed-in session (storage) nor a browser profile.
                        shutil.copytree(root / "e2e/.windup", kept / ".windup",
                                        ignore=shutil.ignore_patterns("storage", "profile"))
                        if report.exists():
                            shutil.copy(report, kept / "report.json")
        finally:
            app.stop()
        unjudged = (f", {totals['unjudged']} it cannot tell (no record on the server)"
                    if totals["unjudged"] else "")
        print(f"\n{totals['runs']} {'cached' if args.cached else 'first'} plans: "
              f"{totals['passed']} passed by windup, "
              f"{totals['oracle']} done as {app.record} records it{unjudged}, "
              f"{totals['false_green']} false greens; {totals['calls']} model calls")
        return 1 if totals["false_green"] else 0


def provider_toml(args):
    """The local model, its planner settings and its (zero) price."""
    return f'''[providers.local]
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


def project_toml(base, args):
    return f'''base_url = "{base}"

[hooks]
before_each = 'python3 "$CATALOG_SITE/manage.py" seed'
timeout_ms = 30000
env = ["PYTHONPATH", "CATALOG_DB", "CATALOG_SITE"]

[timeouts]
action_ms = 5000

''' + provider_toml(args)


if __name__ == "__main__":
    sys.exit(main())
