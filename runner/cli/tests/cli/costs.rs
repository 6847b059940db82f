//! `windup costs`: the run ledger totalled by model, provider, scenario and day, `--since`,
//! `--recompute` with the project's prices, and bad input.

use std::path::Path;

use serde_json::Value;

use crate::support::*;

/// A project holding only a ledger: two days, two models, and cache hits that made no call.
fn ledger_project() -> tempfile::TempDir {
    let line = |day: &str, scenario: &str, call: Option<(&str, &str)>, tokens: [u64; 3], cost| {
        let mut v = serde_json::json!({
            "ledger_version": "0.1",
            "run_id": format!("run-{day}"),
            "scenario_id": scenario,
            "started_at": format!("{day}T10:00:00Z"),
            "finished_at": format!("{day}T10:00:04Z"),
            "status": "passed",
            "cache": if call.is_some() { "miss" } else { "hit" },
            "calls": {"planning": u32::from(call.is_some()), "continuation": 0, "replan": 0},
            "tokens": {"input": tokens[0], "output": tokens[1], "cached": tokens[2]},
            "cost_micro_usd": cost,
            "timings": {"plan_ms": 0, "execute_ms": 900, "verify_ms": 100},
        });
        if let Some((provider, model)) = call {
            v["provider"] = provider.into();
            v["model"] = model.into();
            v["price_table_date"] = "2025-04-14".into();
        }
        v.to_string()
    };
    let flash = Some(("gemini", "gemini-2.5-flash"));
    let mini = Some(("openai", "gpt-4.1-mini"));
    let lines = [
        // 100k × $0.30 + 10k × $2.50 per Mtok = $0.055.
        line("2025-07-01", "sign-in", flash, [100_000, 10_000, 0], 55_000),
        line("2025-07-01", "todos", None, [0, 0, 0], 0),
        // 100k × $0.40 + 100k cached × $0.10 + 20k × $1.60 per Mtok = $0.082.
        line(
            "2025-07-02",
            "todos",
            mini,
            [200_000, 20_000, 100_000],
            82_000,
        ),
        line("2025-07-02", "sign-in", None, [0, 0, 0], 0),
    ];
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("e2e/.windup/ledger.jsonl");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    std::fs::write(&ledger, lines.join("\n") + "\n").unwrap();
    dir
}

fn costs(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = windup(dir, &[&["costs"][..], args].concat());
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap(), stdout, stderr(&out))
}

fn costs_json(dir: &Path, args: &[&str]) -> Value {
    let (code, stdout, err) = costs(dir, &[&["--json"][..], args].concat());
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `[(key, runs, cost_micro_usd)]` of one grouping in `windup costs --json`.
fn grouped(report: &Value, by: &str) -> Vec<(String, u64, u64)> {
    report["by"][by]
        .as_array()
        .unwrap_or_else(|| panic!("no {by}: {report}"))
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["runs"].as_u64().unwrap(),
                r["cost_micro_usd"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn costs_totals_the_ledger_by_model_provider_scenario_and_day() {
    let dir = ledger_project();
    let (code, text, err) = costs(dir.path(), &[]);
    assert_eq!(code, 0, "{err}");
    for heading in ["model ", "provider ", "scenario ", "day "] {
        assert!(
            text.lines().any(|l| l.starts_with(heading)),
            "{heading}: {text}"
        );
    }
    let row = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no row {key}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        row("gemini-2.5-flash"),
        [
            "gemini-2.5-flash",
            "1",
            "1",
            "100000",
            "10000",
            "0",
            "$0.055000"
        ]
    );
    assert_eq!(
        row("openai"),
        ["openai", "1", "1", "200000", "20000", "100000", "$0.082000"]
    );
    assert_eq!(row("(none)")[1], "2");
    assert_eq!(row("2025-07-02").last(), Some(&"$0.082000"));
    assert!(
        text.contains("total: 4 runs, 2 LLM calls, 300000 input / 30000 output / 100000 cached tokens, $0.137000"),
        "{text}"
    );
    // Each table's columns line up: the cost column ends at the same place on every line.
    let model_table: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(model_table.len(), 4, "{text}");
    assert!(
        model_table.iter().all(|l| l.len() == model_table[0].len()),
        "{text}"
    );

    let report = costs_json(dir.path(), &[]);
    assert_eq!(report["total"]["cost_micro_usd"], 137_000);
    assert_eq!(report["total"]["runs"], 4);
    assert_eq!(report["prices"], "recorded");
    assert_eq!(
        grouped(&report, "model"),
        [
            ("(none)".into(), 2, 0),
            ("gemini-2.5-flash".into(), 1, 55_000),
            ("gpt-4.1-mini".into(), 1, 82_000)
        ]
    );
    assert_eq!(
        grouped(&report, "day"),
        [
            ("2025-07-01".into(), 2, 55_000),
            ("2025-07-02".into(), 2, 82_000)
        ]
    );
    assert_eq!(
        grouped(&report, "scenario"),
        [("sign-in".into(), 2, 55_000), ("todos".into(), 2, 82_000)]
    );

    let only = costs_json(dir.path(), &["--by", "provider", "--by", "day,provider"]);
    let groupings: Vec<&String> = only["by"].as_object().unwrap().keys().collect();
    assert_eq!(groupings, ["day", "provider"]);
}

#[test]
fn costs_since_keeps_the_later_days() {
    let dir = ledger_project();
    let report = costs_json(dir.path(), &["--since", "2025-07-02"]);
    assert_eq!(report["since"], "2025-07-02");
    assert_eq!(report["total"]["runs"], 2);
    assert_eq!(report["total"]["cost_micro_usd"], 82_000);
    assert_eq!(
        grouped(&report, "model"),
        [("(none)".into(), 1, 0), ("gpt-4.1-mini".into(), 1, 82_000)]
    );
    let (code, text, _) = costs(dir.path(), &["--since", "2030-01-01"]);
    assert_eq!(
        (code, text.as_str()),
        (0, "no ledger records since 2030-01-01\n")
    );
}

#[test]
fn costs_recompute_uses_the_project_prices() {
    let dir = ledger_project();
    // The shipped list reproduces the recorded costs…
    let report = costs_json(dir.path(), &["--recompute"]);
    assert_eq!(report["prices"], "recomputed");
    assert_eq!(report["total"]["cost_micro_usd"], 137_000);
    // …and an override changes them: 100k × $1 + 10k × $10 = $0.20 instead of $0.055.
    std::fs::write(
        dir.path().join("windup.toml"),
        "[prices.\"gemini-2.5-flash\"]\ninput_usd_per_mtok = 1.0\noutput_usd_per_mtok = 10\n",
    )
    .unwrap();
    let report = costs_json(dir.path(), &["--recompute"]);
    assert_eq!(report["total"]["cost_micro_usd"], 282_000);
    assert_eq!(
        grouped(&report, "model")[1],
        ("gemini-2.5-flash".into(), 1, 200_000)
    );
    // Without --recompute the ledger's own costs stand.
    assert_eq!(
        costs_json(dir.path(), &[])["total"]["cost_micro_usd"],
        137_000
    );

    let (code, text, _) = costs(dir.path(), &["--recompute"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("$0.282000") && text.contains("recomputed"),
        "{text}"
    );

    // A bad price in windup.toml is bad input.
    std::fs::write(
        dir.path().join("windup.toml"),
        "[prices.\"gemini-2.5-flash\"]\ninput_usd_per_mtok = -1\noutput_usd_per_mtok = 10\n",
    )
    .unwrap();
    let (code, _, err) = costs(dir.path(), &["--recompute"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("windup.toml: prices.gemini-2.5-flash.input_usd_per_mtok"),
        "{err}"
    );
}

#[test]
fn costs_bad_input_exits_2_naming_the_flag_or_the_line() {
    let dir = ledger_project();
    let (code, _, err) = costs(dir.path(), &["--since", "July"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--since") && err.contains("YYYY-MM-DD"),
        "{err}"
    );
    let (code, _, err) = costs(dir.path(), &["--since", "2025-02-30"]);
    assert_eq!(code, 2, "{err}");

    let ledger = dir.path().join("e2e/.windup/ledger.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    std::fs::write(
        &ledger,
        format!("{first}\n{{\"ledger_version\": \"0.1\"}}\n{rest}"),
    )
    .unwrap();
    let (code, _, err) = costs(dir.path(), &["--json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("e2e/.windup/ledger.jsonl:2"), "{err}");
    assert!(err.contains("fix:"), "{err}");

    // A torn last line (a run killed mid-write) is skipped with a warning.
    std::fs::write(
        &ledger,
        format!("{text}{{\"ledger_version\": \"0.1\", \"run_"),
    )
    .unwrap();
    let (code, _, err) = costs(dir.path(), &["--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("torn"), "{err}");
}

#[test]
fn costs_without_a_ledger_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = costs(dir.path(), &[]);
    assert_eq!(
        (code, text.as_str()),
        (0, "no ledger records yet\n"),
        "{err}"
    );
    let report = costs_json(dir.path(), &[]);
    assert_eq!(report["total"]["runs"], 0);
    assert_eq!(report["total"]["cost_micro_usd"], 0);
}
