#!/usr/bin/env python3
"""The labelled failure set of issue 22: LLM-free triage and healing measured on real failures.

Each case of bench/triage-set/cases.json names a base app (the bundled example, a variant of it
whose projects come from an XHR, a TodoMVC framework example, a seeded MiniWoB task page), a
scenario whose verified plan passes on it, a declarative mutation (text replacements in served
files, an HTTP status or a delay for a path, the app unreachable) and its labels (the verdict a
careful human gives, whether a correct healing would mend it, whether it is a regression that must
keep failing). Per case, in a temporary project (`[timeouts] action_ms = 2000`,
`navigation_ms = 5000`, no LLM provider):

1. the plan is verified and cached with `windup replay PLAN --save` against the unmodified app
   (served by a small Python server on 127.0.0.1), which must pass;
2. the mutation is applied (by the server, to what it serves: the files on disk never change);
3. `windup run ID --no-heal --report json=…` measures triage on the failure itself;
4. the cache is restored and `windup run ID` (healing on) measures healing; a healed scenario is
   run once more, which must replay the healed plan and pass.

Prints a table per case, the agreement with the labels (overall, per class, confusion matrix) and
the healing figures (heals, correct heals, missed heals, false heals on regressions, LLM calls
saved), and writes target/triage-set/results.json. Never run in CI.

    python3 bench/triage-set.py [--windup PATH] [--only ID ...] [--cases FILE]

Fixtures come from scripts/fetch-fixtures.sh (WINDUP_FIXTURES_DIR to use installed ones).
"""
import argparse, copy, json, mimetypes, os, re, shutil, subprocess, sys, tempfile, threading, time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from common import ACME_CREDENTIALS as CREDENTIALS, fixtures, free_port, machine_made, windup_binary

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench/triage-set/cases.json"
OUT = ROOT / "target/triage-set/results.json"
ACME = ROOT / "examples/acme"
TODOMVC_PLAN = ROOT / "runner/engine/tests/plans/todomvc.json"
MINIWOB_PLANS = ROOT / "runner/engine/tests/plans/miniwob"
VERDICTS = ["app_changed", "app_broken", "test_outdated", "environment", "unknown"]
TOML = """base_url = "{base}"

[timeouts]
action_ms = 2000
navigation_ms = 5000
"""
# A MiniWoB task page started on load with a seed, as bench/suite.py serves them.
SEED = ("<script>window.addEventListener('load', function () { (function go() {"
        " if (typeof core !== 'object' || core.cover_div === null) return setTimeout(go, 20);"
        " core.EPISODE_MAX_TIME = 3600000; Math.seedrandom(%s); core.startEpisodeReal();"
        " })(); });</script></body>")
SEEDED = re.compile(r"^/miniwob/(.+)-seed(\d+)\.html$")


class Site:
    """What the server serves: one app, unmodified or with one case's mutation."""

    def __init__(self, fx, apps):
        self.fx, self.apps = fx, apps
        self.lock = threading.Lock()
        self.app, self.mutation = None, {}

    def set(self, app, mutation=None):
        with self.lock:
            self.app, self.mutation = app, mutation or {}

    def root(self, app):
        kind = self.apps[app]["kind"]
        if kind == "acme":
            return ROOT / self.apps[app]["root"]
        if kind == "todomvc":
            return Path(self.fx["TODOMVC_ROOT"])
        return Path(self.fx["MINIWOB_HTML"])

    def text(self, app, rel, mutation):
        """The served text of rel (a path under the app's root), or None: the base file or one the
        app adds, its app patch, then the case's replacements."""
        spec = self.apps[app]
        if rel in spec.get("files", {}):
            text = spec["files"][rel]
        else:
            path = (self.root(app) / rel).resolve()
            if not path.is_file() or self.root(app).resolve() not in path.parents:
                return None
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                return path.read_bytes()  # binary: served as it is
        if isinstance(text, bytes):
            return text
        for p in spec.get("patch", []):
            if p["file"] == rel:
                text = text.replace(p["from"], p["to"])
        for r in mutation.get("replace", []):
            if r["file"] == rel:
                text = text.replace(r["from"], r["to"])
        return text

    def answer(self, path):
        """(status, content type, body, delay in s) for a request path."""
        with self.lock:
            app, mutation = self.app, self.mutation
        delay = sum(d["ms"] for d in mutation.get("delay", []) if d["path"] == path) / 1000
        # The case's statuses, then the app's own (a learn.json its repository never served).
        for s in mutation.get("status", []) + self.apps[app].get("status", []):
            if s["path"] == path:
                return s["code"], "text/html", f"<h1>HTTP {s['code']}</h1>".encode(), delay
        rel = path.lstrip("/") or "index.html"
        if rel.endswith("/"):
            rel += "index.html"
        body = None
        seeded = SEEDED.match(path) if self.apps[app]["kind"] == "miniwob" else None
        if seeded:
            page = self.text(app, f"miniwob/{seeded[1]}.html", mutation)
            if isinstance(page, str):
                body = page.replace("</body>", SEED % seeded[2], 1)
        else:
            body = self.text(app, rel, mutation)
        if body is None:
            return 404, "text/html", b"<h1>Not found</h1>", delay
        ctype = mimetypes.guess_type(rel)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        return 200, ctype, body.encode() if isinstance(body, str) else body, delay


def serve(site):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            status, ctype, body, delay = site.answer(unquote(urlsplit(self.path).path))
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def base_plan(case, apps):
    """The verified plan of the case's scenario, as the case's own scenario."""
    kind = apps[case["app"]]["kind"]
    if kind == "acme":
        plan = json.loads((ACME / f"e2e/.windup/cache/{case['scenario']}.json").read_text())["plan"]
    elif kind == "todomvc":
        plan = json.loads(TODOMVC_PLAN.read_text())
        plan["start_url"] = f"/examples/{case['scenario']}/index.html"
    else:
        plan = json.loads((MINIWOB_PLANS / f"{case['scenario']}.json").read_text())
        task, seed = case["scenario"].rsplit("-", 1)
        plan["start_url"] = f"/miniwob/{task}-seed{seed}.html"
    plan = copy.deepcopy(plan)
    plan["scenario_id"] = case["id"]
    for edit in case.get("plan_edit", []):
        step = next(a for a in plan["actions"] if a["id"] == edit["action"])
        step["target"]["selector"] = edit["selector"]
    return plan


def project(case, plan, apps, base, tmp):
    proj = tmp / case["id"]
    (proj / "e2e/scenarios").mkdir(parents=True)
    (proj / "windup.toml").write_text(TOML.format(base=base.rstrip("/")))
    (proj / "e2e/scenarios" / f"{case['id']}.yaml").write_text(
        f"id: {case['id']}\ntask: {json.dumps(plan['task'])}\nstart_url: {plan['start_url']}\n")
    if apps[case["app"]]["kind"] == "acme":
        shutil.copy(ACME / "e2e/manifest.yaml", proj / "e2e/manifest.yaml")
    (proj / "plan.json").write_text(json.dumps(plan, indent=2))
    return proj


def windup_run(windup, proj, case, base, env, heal):
    """One `windup run` of the case; what the report says of it."""
    report = proj / "r.json"
    report.unlink(missing_ok=True)
    cmd = [windup, "run", case["id"], "--root", str(proj), "--base-url", base, "-j", "1", "-q",
           "--report", f"json={report}"] + ([] if heal else ["--no-heal"])
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    out = {"exit": p.returncode, "wall_s": round(wall, 2)}
    try:
        r = json.loads(report.read_text())
    except (OSError, ValueError):
        out["error"] = (p.stderr or p.stdout)[-1500:]
        return out
    s = r["scenarios"][0]
    out.update({k: s.get(k) for k in ("status", "failure_class", "failed_action_id", "message", "cache",
                                      "heal", "triage", "llm_calls", "duration_ms")})
    out["message"] = (out["message"] or "")[:600] or None
    ev = s.get("evidence") or {}
    out["evidence"] = {k: ev.get(k) for k in ("target", "failed_requests", "console_errors", "url") if ev.get(k)}
    out["totals_llm_calls"] = r["totals"].get("llm_calls", 0)
    return out


def restore(proj):
    shutil.rmtree(proj / "e2e/.windup", ignore_errors=True)
    shutil.copytree(proj / "windup-cache.orig", proj / "e2e/.windup")


def run_case(case, apps, site, base, windup, env, tmp):
    res = {k: case[k] for k in ("id", "app", "scenario", "kind", "label", "heal", "regression", "why")}
    plan = base_plan(case, apps)
    proj = project(case, plan, apps, base, tmp)
    try:
        site.set(case["app"])
        # The baseline: the plan must pass on the unmodified app. A loaded machine can make a page
        # miss the 5 s navigation timeout, so it gets three tries.
        for attempt in range(3):
            p = subprocess.run([windup, "replay", str(proj / "plan.json"), "--save", "--root", str(proj),
                                "--base-url", base, "-q"], env=env, capture_output=True, text=True)
            if p.returncode == 0:
                break
        res["baseline_tries"] = attempt + 1
        if p.returncode != 0:
            res["invalid"] = "the plan did not pass on the unmodified app: " + (p.stdout + p.stderr)[-800:]
            return res
        # `replay --save` marks the plan as a person's (protected: a heal of it is only proposed).
        # Healing is measured on a machine-made plan, which a heal replaces, as in a planned run.
        machine_made(proj / "e2e/.windup/cache" / f"{case['id']}.json", "bench/triage-set")
        shutil.copytree(proj / "e2e/.windup", proj / "windup-cache.orig")
        mutation = case["mutation"]
        site.set(case["app"], mutation)
        where = base
        if mutation.get("unreachable"):
            where = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
        restore(proj)
        res["no_heal"] = windup_run(windup, proj, case, where, env, heal=False)
        if res["no_heal"].get("status") != "failed":
            res["invalid"] = f"the mutation did not make the scenario fail: {res['no_heal']}"
            return res
        res["verdict"] = (res["no_heal"].get("triage") or {}).get("verdict")
        res["agree"] = res["verdict"] == case["label"]
        restore(proj)
        res["with_heal"] = windup_run(windup, proj, case, where, env, heal=True)
        res["healed"] = res["with_heal"].get("cache") == "healed" and res["with_heal"].get("status") == "passed"
        if res["healed"]:
            res["after_heal"] = windup_run(windup, proj, case, where, env, heal=True)
            res["heal_then_passes"] = res["after_heal"].get("status") == "passed"
        return res
    finally:
        site.set(case["app"])
        shutil.rmtree(proj, ignore_errors=True)


def pct(a, b):
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def summarise(results):
    valid = [r for r in results if "invalid" not in r]
    lines = []
    w = max(len(r["id"]) for r in results)
    lines.append(f"{'case':{w}}  {'kind':15} {'label':13} {'verdict (--no-heal)':19} {'':2} {'failure class':20} "
                 f"{'heal?':5} {'reg':3}  healing run")
    for r in results:
        if "invalid" in r:
            lines.append(f"{r['id']:{w}}  INVALID: {r['invalid'][:150]}")
            continue
        nh, wh = r["no_heal"], r["with_heal"]
        if r["healed"]:
            h = f"HEALED {wh['heal']['rule']} {wh['heal']['action_id']}" + (", next run passes" if r.get("heal_then_passes") else ", NEXT RUN FAILS")
        elif wh.get("status") == "failed":
            h = "not healed" + (" (tried)" if "not healed" in (wh.get("message") or "") else "")
        else:
            h = f"{wh.get('status')} ({wh.get('cache')})"
        lines.append(f"{r['id']:{w}}  {r['kind']:15} {r['label']:13} {str(r['verdict']):19} {'ok' if r['agree'] else 'XX':2} "
                     f"{str(nh.get('failure_class')):20} {'yes' if r['heal'] else 'no':5} {'yes' if r['regression'] else 'no':3}  {h}")
    lines.append("")
    agree = sum(r["agree"] for r in valid)
    lines.append(f"cases: {len(results)}, valid {len(valid)} (baseline passed, mutation failed it)")
    lines.append(f"triage agreement with the labels: {pct(agree, len(valid))}")
    lines.append("per class (recall: of the cases labelled X, verdict X; precision: of the verdicts X, labelled X):")
    for v in VERDICTS:
        lab = [r for r in valid if r["label"] == v]
        got = [r for r in valid if r["verdict"] == v]
        lines.append(f"  {v:14} recall {pct(sum(r['agree'] for r in lab), len(lab)):13}  "
                     f"precision {pct(sum(r['agree'] for r in got), len(got))}")
    lines.append("confusion matrix (rows: label, columns: verdict):")
    cols = VERDICTS + ["none"]
    lines.append("  " + " " * 14 + "".join(f"{c[:13]:>14}" for c in cols))
    for v in VERDICTS:
        row = Counter(r["verdict"] or "none" for r in valid if r["label"] == v)
        lines.append(f"  {v:14}" + "".join(f"{row.get(c, 0):>14}" for c in cols))
    healed = [r for r in valid if r["healed"]]
    mendable = [r for r in valid if r["heal"]]
    correct = [r for r in healed if r["heal"] and r.get("heal_then_passes")]
    false_heals = [r for r in healed if r["regression"]]
    wrong = [r for r in healed if not r["heal"] and not r["regression"]]
    calls = sum((r[k].get("llm_calls") or 0) for r in valid for k in ("no_heal", "with_heal", "after_heal") if k in r)
    lines.append("")
    lines.append("healing (the default run, after the --no-heal one):")
    lines.append(f"  heals made:                          {len(healed)}")
    lines.append(f"  correct heals (heal=yes, then passes): {pct(len(correct), len(mendable))} of the cases a correct healing mends")
    lines.append(f"  missed heals (heal=yes, not healed):  {len(mendable) - len([r for r in mendable if r['healed']])}: "
                 + ", ".join(r["id"] for r in mendable if not r["healed"]))
    lines.append(f"  FALSE heals (on regressions):         {len(false_heals)} of {sum(r['regression'] for r in valid)} regressions"
                 + (": " + ", ".join(r["id"] for r in false_heals) if false_heals else ""))
    lines.append(f"  other heals on heal=no cases:         {len(wrong)}" + (": " + ", ".join(r["id"] for r in wrong) if wrong else ""))
    lines.append(f"  LLM calls saved:                     >= {len(correct)} (one re-plan each); LLM calls made in all runs: {calls}")
    if healed:
        lines.append("  the heals (step: from -> to):")
        for r in healed:
            h = r["with_heal"]["heal"]
            lines.append(f"    {r['id']} {h['action_id']} ({h['rule']}): {h['from']} -> {h['to']}")
    dis = [r for r in valid if not r["agree"]]
    if dis:
        lines.append("")
        lines.append("disagreements (label -> verdict: failure class, first fact):")
        for r in dis:
            facts = (r["no_heal"].get("triage") or {}).get("facts") or [""]
            lines.append(f"  {r['id']}: {r['label']} -> {r['verdict']}: {r['no_heal'].get('failure_class')}: {facts[0][:220]}")
    return "\n".join(lines), {
        "cases": len(results), "valid": len(valid), "agree": agree,
        "heals": len(healed), "correct_heals": len(correct), "mendable": len(mendable),
        "false_heals": len(false_heals), "other_heals": len(wrong), "llm_calls": calls,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--windup", default=os.environ.get("WINDUP"))
    ap.add_argument("--cases", default=str(CASES))
    ap.add_argument("--only", nargs="*", help="case ids to run (default: all)")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args()
    windup = windup_binary(a.windup)
    doc = json.loads(Path(a.cases).read_text())
    apps, cases = doc["apps"], doc["cases"]
    if a.only:
        cases = [c for c in cases if c["id"] in a.only]
    fx = fixtures()
    site = Site(fx, apps)
    server, base = serve(site)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WINDUP_") or k == "WINDUP_CHROMIUM"}
    for k, v in CREDENTIALS.items():
        env.setdefault(k, v)
    tmp = Path(tempfile.mkdtemp(prefix="windup-triage-set-"))
    results = []
    started = time.time()
    try:
        for i, case in enumerate(cases):
            r = run_case(case, apps, site, base, windup, env, tmp)
            results.append(r)
            state = r.get("invalid", "")[:100] or f"{r['label']} -> {r['verdict']}" + (" HEALED" if r.get("healed") else "")
            print(f"[{i + 1}/{len(cases)}] {case['id']}: {state}", file=sys.stderr)
    finally:
        server.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    text, totals = summarise(results)
    print(text)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"windup": windup, "seconds": round(time.time() - started), "totals": totals,
                               "results": results}, indent=2))
    print(f"\nresults: {out} ({round(time.time() - started)} s)")


if __name__ == "__main__":
    main()
