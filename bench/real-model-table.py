#!/usr/bin/env python3
"""The table of a `WINDUP_BENCH_MODE=run bench/real-model.sh` run, from its ledger: per task, the
first generation (plan valid, verified, calls and which, prompt tokens as the server counted
them, seconds) and whether the cached plan then replayed with 0 calls.

Usage: bench/real-model-table.py LEDGER.jsonl [LOGS_DIR]   (LOGS_DIR/<id>.log: `windup run`'s
stderr, where a correction call shows as "correcting a step")
"""
import os
import json
import sys
from datetime import datetime

INVALID = {"plan_rejected", "llm_error", "budget_exceeded", "no_plan", "not_cached"}


def seconds(r):
    a = datetime.fromisoformat(r["started_at"].replace("Z", "+00:00"))
    b = datetime.fromisoformat(r["finished_at"].replace("Z", "+00:00"))
    return (b - a).total_seconds()


def main():
    records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    first, replay = {}, {}
    for r in records:
        sid = r["scenario_id"]
        if r["cache"] == "miss" and sid not in first:
            first[sid] = r
        elif r["cache"].startswith("hit"):  # hit, or hit_changed_page (the page's signature moved)
            replay[sid] = r
    rows = []
    print("| task | plan valid | verified | calls (plan+cont.) | correction-free | prompt tokens (mean per call) | s | replay, 0 calls |")
    print("|---|---|---|---|---|---|---|---|")
    for sid in sorted(first):
        r = first[sid]
        calls = r["calls"]
        n = calls.get("planning", 0) + calls.get("continuation", 0) + calls.get("repair", 0)
        valid = r.get("failure_class") not in INVALID
        verified = r["status"] == "passed"
        per_call = r["tokens"]["input"] / n if n else 0
        rp = replay.get(sid)
        rp_ok = rp is not None and rp["status"] == "passed" and sum(rp["calls"].values()) == 0
        log = os.path.join(sys.argv[2], f"{sid}.log") if len(sys.argv) > 2 else None
        corrected = log is not None and os.path.exists(log) and "correcting a step" in open(log).read()
        rows.append((sid, valid, verified and not corrected, n, per_call, rp_ok, verified))
        print(
            f"| {sid} | {'yes' if valid else 'no'} | {'yes' if verified else 'no'} | "
            f"{n} ({calls.get('planning', 0)}+{calls.get('continuation', 0)}) | "
            f"{'no' if corrected else 'yes'} | {r['tokens']['input']} ({per_call:.0f}) | "
            f"{seconds(r):.1f} | {'yes' if rp_ok else ('-' if rp is None else 'no')} |"
            + ("" if verified else f" {r.get('failure_class')}")
        )
    total = len(rows)
    verified = sum(1 for r in rows if r[2])
    print()
    print(f"verified by their first generation without a correction call: {verified} of {total} ({100 * verified / max(total, 1):.0f}%)")
    todo = [r for r in rows if r[0].startswith("todomvc")]
    if todo:
        print(f"highest mean prompt tokens per call on TodoMVC: {max(r[4] for r in todo):.0f}")
    cached = sum(1 for r in rows if r[6])
    print(f"replays with 0 calls: {sum(1 for r in rows if r[5])} of {cached} plans verified and cached")


if __name__ == "__main__":
    main()
