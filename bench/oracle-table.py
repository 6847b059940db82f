#!/usr/bin/env python3
"""The table of a `WINDUP_BENCH_MODE=run bench/real-model.sh` run: per task, Windup's verdict on
its first generation and an oracle's verdict that is not Windup's own, and the false greens
(verified by Windup, not done by the oracle's measure).

The oracle, per task whose first generation Windup verified and cached:
  - TodoMVC: the plan replays (no LLM call) on the app, and fails on every mutant the task's effect
    depends on (add: mutant-add; complete: add, complete; active: add, complete, filter): a plan
    that still passes when the app never hears the Enter, the tick or the filter click checked
    something other than the task's effect;
  - MiniWoB: the plan replays on the app, and the episode of that replay ended with MiniWoB's own
    reward > 0.
Good: the oracle holds. False green: verified by Windup, not good (a replay that fails on the
app is one). A task Windup did not verify is neither. A mutant that bench/check-mutants.mjs found
not to block its effect on an app is left out of that app's verdicts, and said so.

Usage:
  bench/oracle-table.py LEDGER.jsonl RESULTS_DIR [--json OUT.json]
      (RESULTS_DIR: <id>.log, the first generation's stderr; replays.json from
      bench/oracle_replays.py; mutants.json from bench/check-mutants.mjs, when there)
  bench/oracle-table.py --compare BEFORE.json AFTER.json
"""
import json, os, sys
from datetime import datetime
from pathlib import Path

from oracle_site import all_ids, family, mutants_of

FAMILIES = ["add", "complete", "active", "miniwob"]
ORACLE_VERSION = 1


def seconds(r):
    a = datetime.fromisoformat(r["started_at"].replace("Z", "+00:00"))
    b = datetime.fromisoformat(r["finished_at"].replace("Z", "+00:00"))
    return round((b - a).total_seconds(), 1)


def first_generations(ledger):
    """The first record of each scenario that planned (cache miss)."""
    first = {}
    for line in open(ledger):
        if line.strip():
            r = json.loads(line)
            if r["cache"] == "miss" and r["scenario_id"] not in first:
                first[r["scenario_id"]] = r
    return first


def blocking(mutant_check):
    """{(app, mutant): False} for every check of bench/check-mutants.mjs that failed."""
    return {(r["app"], r["mode"].removeprefix("mutant-")): r["ok"] for r in mutant_check if r["mode"] != "app"}


def row_of(sid, first, replays, logs, blocks):
    r = first.get(sid)
    rp = replays.get(sid, {})
    row = {"id": sid, "family": family(sid), "planned": r is not None}
    if r is not None:
        calls = r["calls"]
        n = sum(calls.values())  # every purpose: planning, continuation, repair, replan
        log = logs / f"{sid}.log"
        row.update({
            "status": r["status"], "failure_class": r.get("failure_class"),
            "calls": n, "calls_by_purpose": calls,
            "prompt_tokens": r["tokens"]["input"], "prompt_tokens_per_call": round(r["tokens"]["input"] / n) if n else 0,
            "seconds": seconds(r),
            "corrected": log.exists() and "correcting a step" in log.read_text(),
        })
    row["verified"] = bool(r is not None and r["status"] == "passed" and rp.get("cached"))
    if not row["verified"]:
        return row
    app = rp.get("app", {})
    row["app_replay"] = {k: app.get(k) for k in ("status", "failure_class", "cache", "llm_calls")}
    row["replay_zero_calls"] = app.get("status") == "passed" and app.get("llm_calls") == 0
    if sid.startswith("miniwob-"):
        rewards = rp.get("rewards") or []
        row["reward"] = rewards[-1]["reward"] if rewards else None
        row["episodes"] = len(rewards)
        row["good"] = app.get("status") == "passed" and (row["reward"] or 0) > 0
    else:
        app_name = sid.split("-")[1]
        row["mutants"], row["unreliable_mutants"] = {}, []
        for m in mutants_of(sid):
            if blocks.get((app_name, m), True) is False:
                row["unreliable_mutants"].append(m)
                continue
            res = rp.get("mutants", {}).get(m, {})
            row["mutants"][m] = "caught" if res.get("status") == "failed" else \
                ("survived" if res.get("status") == "passed" else f"error: {res.get('status')}")
        row["good"] = app.get("status") == "passed" and all(v == "caught" for v in row["mutants"].values())
    row["false_green"] = not row["good"]
    return row


def cell_verified(row):
    if not row["planned"]:
        return "not run"
    if row["verified"]:
        return "yes" + (" (corrected)" if row["corrected"] else "")
    return f"no: {row.get('failure_class') or row['status']}"


def cell_replay(row):
    if not row["verified"]:
        return "-"
    a = row["app_replay"]
    if row["replay_zero_calls"]:
        return "yes" + (f" ({a['cache']})" if a.get("cache") not in ("hit", None) else "")
    return f"no: {a.get('failure_class') or a.get('status')}"


def cell_mutants(row):
    if not row["verified"] or "mutants" not in row:
        return "-"
    m = row["mutants"]
    caught = [k for k, v in m.items() if v == "caught"]
    s = f"{len(caught)}/{len(m)}"
    others = [f"{k} {v}" for k, v in m.items() if v != "caught"]
    if others:
        s += " (" + ", ".join(others) + ")"
    if row["unreliable_mutants"]:
        s += " [" + ", ".join(row["unreliable_mutants"]) + " left out: does not block on this app]"
    return s


def cell_reward(row):
    if not row["verified"] or not row["id"].startswith("miniwob-"):
        return "-"
    if row["reward"] is None:
        return "no episode end"
    return f"{row['reward']:.2f}" + (f" ({row['episodes']} episodes)" if row["episodes"] > 1 else "")


def table(rows):
    out = ["| task | verified by Windup | calls | prompt tokens per call | s | replay, 0 calls | mutants caught | MiniWoB reward | oracle good | false green |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        good = "-" if not r["verified"] else ("yes" if r["good"] else "no")
        fg = "-" if not r["verified"] else ("**FALSE GREEN**" if r["false_green"] else "no")
        out.append(f"| {r['id']} | {cell_verified(r)} | {r.get('calls', '-')} | {r.get('prompt_tokens_per_call', '-')} | "
                   f"{r.get('seconds', '-')} | {cell_replay(r)} | {cell_mutants(r)} | {cell_reward(r)} | {good} | {fg} |")
    return "\n".join(out)


def totals(rows):
    def count(rs):
        return {"tasks": len(rs), "verified": sum(r["verified"] for r in rs),
                "good": sum(r.get("good", False) for r in rs),
                "false_greens": sum(r.get("false_green", False) for r in rs)}
    t = count(rows)
    t["by_family"] = {f: count([r for r in rows if r["family"] == f]) for f in FAMILIES}
    t["false_green_ids"] = [r["id"] for r in rows if r.get("false_green")]
    return t


def pct(a, b):
    return f"{100 * a / b:.0f}%" if b else "-"


def summary(t):
    out = [f"verified by Windup: {t['verified']} of {t['tasks']} ({pct(t['verified'], t['tasks'])})",
           f"oracle good: {t['good']} of {t['tasks']} ({pct(t['good'], t['tasks'])})",
           f"false greens: {t['false_greens']} (of {t['verified']} verified: {pct(t['false_greens'], t['verified'])})",
           "", "| family | tasks | verified | oracle good | false greens |", "|---|---|---|---|---|"]
    for f, c in t["by_family"].items():
        out.append(f"| {f} | {c['tasks']} | {c['verified']} | {c['good']} | {c['false_greens']} |")
    if t["false_green_ids"]:
        out += ["", "false greens: " + ", ".join(t["false_green_ids"])]
    return "\n".join(out)


def compare(before_path, after_path):
    before, after = (json.loads(Path(p).read_text()) for p in (before_path, after_path))
    b, a = ({r["id"]: r for r in x["rows"]} for x in (before, after))

    def state(r):
        if r is None:
            return "absent"
        if not r["verified"]:
            return "not verified"
        return "good" if r["good"] else "FALSE GREEN"
    print(f"| task | {before_path} | {after_path} |\n|---|---|---|")
    for sid in sorted(set(b) | set(a), key=lambda s: (all_ids() + [s]).index(s)):
        sb, sa = state(b.get(sid)), state(a.get(sid))
        print(f"| {sid} | {sb} | {sa}{'' if sb == sa else ' (changed)'} |")
    print()
    for key, label in (("verified", "verified by Windup"), ("good", "oracle good"), ("false_greens", "false greens")):
        print(f"{label}: {before['totals'][key]} -> {after['totals'][key]} (of {after['totals']['tasks']})")
    for f in FAMILIES:
        tb, ta = before["totals"]["by_family"][f], after["totals"]["by_family"][f]
        print(f"  {f}: verified {tb['verified']} -> {ta['verified']}, good {tb['good']} -> {ta['good']}, "
              f"false greens {tb['false_greens']} -> {ta['false_greens']}")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--compare"] and len(args) == 3:
        return compare(args[1], args[2])
    json_out = None
    if "--json" in args:
        i = args.index("--json")
        json_out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    ledger, results = Path(args[0]), Path(args[1])
    first = first_generations(ledger) if ledger.exists() else {}
    replays_file = results / "replays.json"
    replays = json.loads(replays_file.read_text()) if replays_file.exists() else {"tasks": {}}
    mutants_file = results / "mutants.json"
    blocks = blocking(json.loads(mutants_file.read_text())) if mutants_file.exists() else {}
    ids = [s for s in all_ids() if s in first or s in replays["tasks"]]
    ids += sorted(s for s in set(first) | set(replays["tasks"]) if s not in ids)
    rows = [row_of(s, first, replays["tasks"], results, blocks) for s in ids]
    t = totals(rows)
    print(table(rows))
    print()
    print(summary(t))
    not_blocking = sorted(f"{app}/{m}" for (app, m), ok in blocks.items() if not ok)
    if not mutants_file.exists():
        print("\nno mutants.json: the mutants were not checked in this run (node bench/check-mutants.mjs)")
    elif not_blocking:
        print(f"\nmutants that do not block their effect (left out of those apps' verdicts): {', '.join(not_blocking)}")
    if json_out:
        doc = {"oracle_version": ORACLE_VERSION, "windup": replays.get("windup"),
               "windup_version": replays.get("windup_version"), "mutants_not_blocking": not_blocking,
               "totals": t, "rows": rows}
        tmp = Path(json_out).with_name("." + Path(json_out).name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=2) + "\n")
        os.replace(tmp, json_out)


if __name__ == "__main__":
    main()
