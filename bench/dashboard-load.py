#!/usr/bin/env python3
"""Dashboard load: the release `windup-dashboard` binary on SQLite and on PostgreSQL, driven by a
loopback client. Prints, per backend:

  * ingest: records per second, over `--uploads` run uploads of 20 records each (a report of 20
    scenarios and its 20 ledger records, `POST /api/v1/runs`), `--clients` connections at once;
  * pages: p50/p95 latency of every page, signed in, with `--runs` runs stored (the ingested
    runs are copied in SQL, spread over 90 days, to reach that number): the overview (`/`), a
    project's page (`/p/SLUG`: headline, charts and the runs list), the runs list at its first
    and its last page and filtered by branch and result (a result no run has: the filter reads
    the whole branch if no index answers it), a run's page, spend, flaky scenarios, stale
    plans, tokens and people;
  * the server's peak resident memory (VmHWM) over the whole session.

Targets: >= 2,000 records/s on SQLite, < 100 MB resident (issue 5); every page's p95 < 50 ms
at 100,000 runs on both backends (issue 38).
Never run in CI. Needs an idle machine and a release build:

    cargo build --release -p windup-dashboard
    sudo bash scripts/postgres.sh        # PostgreSQL 15 running, role windup_test
    python3 bench/dashboard-load.py [--uploads 500] [--clients 4] [--runs 100000] [--backend sqlite]
"""
import argparse, http.client, json, os, statistics, subprocess, sys, tempfile, threading
import time, urllib.parse, uuid
from pathlib import Path

from common import free_port

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = "postgres://windup_test:windup_test@127.0.0.1:5432/windup_test"
PG_DB = "windup_load_bench"
SCENARIOS = 20
RUNS_PAGE = 25  # the runs list's page size (dashboard/src/web/runs.rs)
PASSWORD = "load bench passphrase"
DAY_MS = 86_400_000


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + "Z"


def upload(i, now_ms):
    """One run of 20 scenarios (a few failing, some planned) with its 20 ledger records."""
    run_id = str(uuid.uuid4())
    started = now_ms - (i % 600) * 60_000
    results, ledger = [], []
    for n in range(SCENARIOS):
        sid = f"scenario-{n:02d}"
        failed = (i + n) % 17 == 0
        planned = (i + n) % 11 == 0
        s = {"scenario_id": sid, "task": f"Task {n}: sign in and do thing {n}",
             "status": "failed" if failed else "passed",
             "cache": "miss" if planned else "hit", "llm_calls": 1 if planned else 0,
             "cost_micro_usd": 1800 if planned else 0, "duration_ms": 900 + n, "attempts": 1,
             "actions": [
                 {"id": "a1", "type": "fill", "step": "fill label=\"Email\" value_ref=EMAIL",
                  "status": "passed", "started_ms": 0, "duration_ms": 40, "wait_ms": 5,
                  "act_ms": 30, "verify_ms": 5},
                 {"id": "a2", "type": "click", "step": "click role=button[name=\"Save\"]",
                  "status": "failed" if failed else "passed", "started_ms": 40,
                  "duration_ms": 300, "wait_ms": 200, "act_ms": 50, "verify_ms": 50}]}
        if failed:
            s.update(failure_class="selector_not_found", failed_action_id="a2",
                     message="no visible match for role=button[name=\"Save\"]")
        results.append(s)
        rec = {"ledger_version": "0.1", "run_id": run_id, "scenario_id": sid,
               "started_at": iso(started), "finished_at": iso(started + 1000),
               "status": s["status"], "cache": s["cache"],
               "calls": {"planning": 1 if planned else 0, "continuation": 0, "replan": 0},
               "tokens": {"input": 1600 if planned else 0, "output": 300 if planned else 0,
                          "cached": 0},
               "cost_micro_usd": s["cost_micro_usd"],
               "timings": {"plan_ms": 900 if planned else 0, "execute_ms": 900, "verify_ms": 20}}
        if planned:
            rec.update(provider="openai", model="gpt-4.1-mini", price_table_date="2026-06-01")
        ledger.append(rec)
    failed = sum(r["status"] == "failed" for r in results)
    report = {"report_version": "0.2", "run_id": run_id, "started_at": iso(started),
              "finished_at": iso(started + 60_000), "windup_version": "0.1.0",
              "git": {"commit": f"{i:040x}", "branch": ["main", "feature/a", "feature/b"][i % 3]},
              "ci": {"provider": "github", "workflow_run": str(1000 + i // 2),
                     "shard": f"{i % 2 + 1}/2"},
              "totals": {"scenarios": SCENARIOS, "passed": SCENARIOS - failed, "failed": failed,
                         "skipped": 0, "flaky": 0,
                         "llm_calls": sum(r["llm_calls"] for r in results),
                         "cost_micro_usd": sum(r["cost_micro_usd"] for r in results),
                         "cache_hits": sum(r["cache"] == "hit" for r in results),
                         "duration_ms": 60_000},
              "scenarios": results}
    return json.dumps({"report": report, "ledger": ledger, "pull_request": None}).encode()


class Server:
    def __init__(self, binary, database):
        self.binary, self.database = binary, database
        self.env = dict(os.environ, DATABASE_URL=database, RUST_LOG="warn",
                        WINDUP_LOAD_PASSWORD=PASSWORD)

    def cli(self, *args):
        r = subprocess.run([self.binary, *args], env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"windup-dashboard {' '.join(args)} failed:\n{r.stderr}")
        return r.stdout.strip()

    def start(self):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--addr", f"127.0.0.1:{self.port}", "--insecure-cookies"],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    return
            except OSError:
                time.sleep(0.05)
        sys.exit("the dashboard did not start")

    def peak_rss_mb(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def ingest(port, token, bodies, clients):
    queue = list(enumerate(bodies))
    lock = threading.Lock()
    errors = []

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                if not queue:
                    return
                _, body = queue.pop()
            c.request("POST", "/api/v1/runs", body=body,
                      headers={"authorization": f"Bearer {token}",
                               "content-type": "application/json"})
            r = c.getresponse(); text = r.read()
            if r.status != 201:
                errors.append(f"{r.status} {text[:200]!r}")

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    t = time.perf_counter()
    for th in threads: th.start()
    for th in threads: th.join()
    dt = time.perf_counter() - t
    if errors:
        sys.exit(f"{len(errors)} uploads failed, first: {errors[0]}")
    return dt


def sign_in(port, email):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/login"); r = c.getresponse(); page = r.read().decode()
    cookies = [h.split(";")[0] for k, h in r.getheaders() if k.lower() == "set-cookie"]
    csrf = page.split('name="csrf" value="')[1].split('"')[0]
    form = urllib.parse.urlencode({"csrf": csrf, "email": email, "password": PASSWORD})
    c.request("POST", "/login", body=form,
              headers={"content-type": "application/x-www-form-urlencoded",
                       "cookie": "; ".join(cookies)})
    r = c.getresponse(); r.read()
    if r.status != 303:
        sys.exit(f"sign-in failed: {r.status}")
    cookies += [h.split(";")[0] for k, h in r.getheaders() if k.lower() == "set-cookie"]
    return "; ".join(cookies)


def page_latency(port, cookie, path, n):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for i in range(n + 3):
        t = time.perf_counter()
        c.request("GET", path, headers={"cookie": cookie})
        r = c.getresponse(); body = r.read()
        dt = (time.perf_counter() - t) * 1000
        if r.status != 200:
            sys.exit(f"GET {path}: {r.status} {body[:200]!r}")
        if i >= 3:  # the first requests warm the connection pool and caches
            times.append(dt)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def newest_run(port, cookie):
    """The id of the runs list's first run, for the run page."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/p/bench/runs?page=0", headers={"cookie": cookie, "hx-request": "true"})
    page = c.getresponse().read().decode()
    return page.split('href="/p/bench/runs/')[1].split('"')[0]


def sql_runner(database):
    """Runs SQL text on the bench database, per backend."""
    if database.startswith("postgres"):
        def run(sql):
            subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database, "-c", sql],
                           check=True, capture_output=True)
        return run
    import sqlite3
    def run(sql):
        db = sqlite3.connect(database)
        db.executescript(sql); db.commit(); db.close()
    return run


def grow(database, target_runs, have):
    """Copies the ingested runs (with their scenario rows and ledger) in SQL until `target_runs`
    runs are stored, each copy shifted back in time so the runs spread over 90 days."""
    run = sql_runner(database)
    pg = database.startswith("postgres")
    day = ("to_char(to_timestamp(({t}) / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD')" if pg
           else "strftime('%Y-%m-%d', ({t}) / 1000, 'unixepoch')")
    # The ingested rows come first (ids 1..n): copies read them by id range, never a full scan.
    sr_max = have * SCENARIOS
    copies = -(-target_runs // have) - 1
    step = 90 * DAY_MS // max(copies, 1)
    for k in range(1, copies + 1):
        limit = min(have, target_runs - have * k)
        if limit <= 0:
            break
        shift = k * step
        run(f"""
INSERT INTO runs (project_id, run_id, started_ms, finished_ms, branch, commit_sha, workflow_run,
  shard, scenarios, passed, failed, skipped, flaky, llm_calls, cost_micro_usd, cache_hits,
  duration_ms, report_json, pr_repo, pr_number, pr_head_sha, comment_status, ingested_ms)
SELECT project_id, run_id || '-c{k}', started_ms - {shift}, finished_ms - {shift}, branch,
  commit_sha, workflow_run || '-c{k}', shard, scenarios, passed, failed, skipped, flaky, llm_calls,
  cost_micro_usd, cache_hits, duration_ms, report_json, pr_repo, pr_number, pr_head_sha,
  comment_status, ingested_ms
FROM runs WHERE id <= {have} ORDER BY id LIMIT {limit};
INSERT INTO scenario_results (project_id, run_pk, scenario_id, status, passed, failed, flaky,
  cache, failure_class, message, branch, commit_sha, day, started_ms)
SELECT s.project_id, c.id, s.scenario_id, s.status, s.passed, s.failed, s.flaky, s.cache,
  s.failure_class, s.message, s.branch, s.commit_sha, {day.format(t=f's.started_ms - {shift}')},
  s.started_ms - {shift}
FROM scenario_results s JOIN runs r ON r.id = s.run_pk
JOIN runs c ON c.project_id = r.project_id AND c.run_id = r.run_id || '-c{k}'
WHERE s.id <= {sr_max};
INSERT INTO ledger (project_id, run_id, scenario_id, day, started_ms, provider, model, calls,
  input_tokens, output_tokens, cached_tokens, cost_micro_usd, record_json)
SELECT l.project_id, l.run_id || '-c{k}', l.scenario_id, {day.format(t=f'l.started_ms - {shift}')},
  l.started_ms - {shift}, l.provider, l.model, l.calls, l.input_tokens, l.output_tokens,
  l.cached_tokens, l.cost_micro_usd, l.record_json
FROM ledger l JOIN runs c ON c.project_id = l.project_id AND c.run_id = l.run_id || '-c{k}'
WHERE l.id <= {sr_max};
""")
    # The rollups the pages read, rebuilt from the copied rows by the migration's own statements.
    rollups = (ROOT / "migrations" / ("postgres" if pg else "sqlite") / "0002_rollups.sql")
    fills = [st.strip() + ";" for st in rollups.read_text().split(";")
             if st.strip().startswith("INSERT")]
    tables = ["scenario_days", "scenario_commits", "spend_days"]
    run("".join(f"DELETE FROM {t};" for t in tables) + "".join(fills) + "ANALYZE;")
    if pg:
        # What autovacuum does to a table that grew by inserts (PostgreSQL 13 and later), here at
        # once: the visibility map lets the runs list skip earlier pages in its index alone.
        run("VACUUM ANALYZE")


def bench(backend, binary, args):
    tmp = tempfile.mkdtemp(prefix="windup-load-")
    if backend == "sqlite":
        database = f"{tmp}/dashboard.db"
    else:
        base = args.postgres.rsplit("/", 1)[0]
        for sql in (f"DROP DATABASE IF EXISTS {PG_DB}", f"CREATE DATABASE {PG_DB}"):
            subprocess.run(["psql", "-q", args.postgres, "-c", sql], check=True,
                           capture_output=True)
        database = f"{base}/{PG_DB}"
    server = Server(binary, database)
    server.cli("project", "create", "bench")
    token = server.cli("token", "create", "bench", "--scope", "ingest").splitlines()[-1].strip()
    # An instance administrator: a person with no role in the project would get its 404.
    server.cli("user", "create", "load@bench.test", "--password-env", "WINDUP_LOAD_PASSWORD",
               "--admin")
    server.start()
    try:
        now_ms = int(time.time() * 1000)
        bodies = [upload(i, now_ms) for i in range(args.uploads)]
        secs = ingest(server.port, token, bodies, args.clients)
        records = args.uploads * SCENARIOS
        print(f"{backend}: ingest {args.uploads} uploads x {SCENARIOS} records in {secs:.2f} s: "
              f"{records / secs:,.0f} records/s ({args.uploads / secs:,.0f} uploads/s, "
              f"{args.clients} clients)", flush=True)
        t = time.perf_counter()
        grow(database, args.runs, args.uploads)
        print(f"{backend}: {args.runs:,} runs stored (copied in SQL in "
              f"{time.perf_counter() - t:.0f} s)", flush=True)
        cookie = sign_in(server.port, "load@bench.test")
        last_page = (args.runs - 1) // RUNS_PAGE
        for label, path in (("overview /", "/"), ("project /p/bench", "/p/bench"),
                            ("runs list /p/bench/runs", "/p/bench/runs?page=0"),
                            ("runs list, last page", f"/p/bench/runs?page={last_page}"),
                            ("runs list, branch and result",
                             "/p/bench/runs?branch=main&status=passed&page=0"),
                            ("a run /p/bench/runs/ID", f"/p/bench/runs/{newest_run(server.port, cookie)}"),
                            ("spend /p/bench/spend", "/p/bench/spend"),
                            ("flaky /p/bench/flaky", "/p/bench/flaky"),
                            ("stale plans /p/bench/stale", "/p/bench/stale"),
                            ("tokens /p/bench/tokens", "/p/bench/tokens"),
                            ("people /p/bench/people", "/p/bench/people")):
            p50, p95 = page_latency(server.port, cookie, path, args.requests)
            print(f"{backend}: {label}: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
                  f"({args.requests} requests)", flush=True)
        print(f"{backend}: server peak RSS {server.peak_rss_mb():.1f} MB", flush=True)
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uploads", type=int, default=500)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--postgres", default=PG_ADMIN, help="a URL of a role that may create databases")
    ap.add_argument("--binary", default=str(ROOT / "target/release/windup-dashboard"))
    args = ap.parse_args()
    if not Path(args.binary).exists():
        sys.exit(f"{args.binary} is missing: cargo build --release -p windup-dashboard")
    for backend in (["sqlite", "postgres"] if args.backend == "both" else [args.backend]):
        bench(backend, args.binary, args)


if __name__ == "__main__":
    main()
