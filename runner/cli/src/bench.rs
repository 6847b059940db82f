//! `windup bench <scenario>`: the validation protocol as a table, and as JSON with `--json`.

use std::fmt::Write as _;
use std::path::PathBuf;

use windup_engine::runner::BenchReport;
use windup_model::ExitCode;

use crate::output::usd;
use crate::{Common, PlanningArgs};

pub(crate) fn run(
    scenario: String,
    json: Option<PathBuf>,
    planning: PlanningArgs,
    common: Common,
) -> ExitCode {
    crate::with_runner(
        &common,
        &planning,
        move |runner, terminal| Box::pin(async move { runner.bench(&scenario, terminal).await }),
        |report: BenchReport, _, _| {
            print!("{}", table(&report));
            if let Some(path) = &json
                && let Err(e) = windup_engine::fsutil::write_json(path, &report)
            {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::Infrastructure;
            }
            if report.passed {
                ExitCode::Success
            } else {
                ExitCode::ScenarioFailed
            }
        },
    )
}

fn mark(ok: bool) -> &'static str {
    if ok { "ok" } else { "FAIL" }
}

fn table(r: &BenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nbench {} with {}/{}\n",
        r.scenario_id, r.provider, r.model
    );
    let _ = writeln!(
        out,
        "{:<4} {:<6} {:<9} {:>5} {:>9} {:>8} {:>8} {:>9} {:>10}",
        "gen", "valid", "verified", "calls", "in tok", "out tok", "llm s", "total s", "cost"
    );
    for (i, g) in r.generations.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:<4} {:<6} {:<9} {:>5} {:>9} {:>8} {:>8} {:>9} {:>10}",
            i + 1,
            if g.valid { "yes" } else { "no" },
            if g.verified { "yes" } else { "no" },
            g.calls,
            g.input_tokens,
            g.output_tokens,
            secs(g.llm_ms),
            secs(g.total_ms),
            usd(g.cost_micro_usd)
        );
        if let (false, Some(m)) = (g.verified, &g.message) {
            let _ = writeln!(out, "     {}", m.chars().take(160).collect::<String>());
        }
    }
    let valid = r.generations.iter().filter(|g| g.valid).count();
    let verified = r.generations.iter().filter(|g| g.verified).count();
    let zero = r
        .replays
        .iter()
        .filter(|x| x.passed && x.calls == 0)
        .count();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<5} generations verified: {verified} of {} (need 4; {valid} valid)",
        mark(r.checks.generations),
        r.generations.len()
    );
    let _ = writeln!(
        out,
        "{:<5} replays passed with 0 calls: {zero} of {} (need 10)",
        mark(r.checks.replays),
        r.replays.len()
    );
    let _ = writeln!(
        out,
        "{:<5} speed-up: first run {} s, median replay {} s, {} (need 5x)",
        mark(r.checks.speedup),
        r.first_run_ms.map(secs).unwrap_or_else(|| "-".into()),
        r.replay_median_ms.map(secs).unwrap_or_else(|| "-".into()),
        r.speedup
            .map(|s| format!("{s:.1}x"))
            .unwrap_or_else(|| "-".into())
    );
    let replay_cost: u64 = r.replays.iter().map(|x| x.cost_micro_usd).sum();
    let _ = writeln!(
        out,
        "{:<5} replay cost: {}",
        mark(r.checks.free_replays),
        usd(replay_cost)
    );
    match &r.recovery {
        Some(rec) => {
            let _ = writeln!(
                out,
                "{:<5} broken selector at {}: replay failed {}, re-plan passed {}, stale entry kept {} ({} calls)",
                mark(r.checks.recovery),
                rec.broken_action,
                yes(rec.replay_failed),
                yes(rec.replanned_and_passed),
                yes(rec.stale_kept),
                rec.calls
            );
        }
        None => {
            let _ = writeln!(
                out,
                "{:<5} broken selector: not tried (no verified plan)",
                mark(false)
            );
        }
    }
    let caught = r.mutants.iter().filter(|m| m.caught).count();
    let _ = writeln!(
        out,
        "{:<5} break the app: {caught} of {} mutants caught (each step's events kept from the app; the plan must fail)",
        mark(r.checks.mutants),
        r.mutants.len()
    );
    for m in r.mutants.iter().filter(|m| !m.caught) {
        let _ = writeln!(
            out,
            "      survived: {} {}: {}",
            m.action_id,
            m.step,
            m.detail.as_deref().unwrap_or("")
        );
    }
    let _ = writeln!(
        out,
        "\n{}",
        if r.passed {
            "protocol passed"
        } else {
            "protocol FAILED"
        }
    );
    out
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn secs(ms: u64) -> String {
    format!("{}.{:02}", ms / 1000, ms % 1000 / 10)
}
