//! The job summary (`$GITHUB_STEP_SUMMARY`) and the sticky PR comment: one Markdown page
//! from the run report.

use windup_engine::reporters::duration;
use windup_model::money::usd;
use windup_model::{CacheOutcome, RunReport, ScenarioResult, ScenarioStatus};

/// Marks the Action's PR comment, so a later run updates it instead of adding one.
pub const COMMENT_MARKER: &str = "<!-- windup -->";

/// What the page says besides the report.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    /// Why planning was off (no provider key: a fork's pull request, say).
    pub require_cached_reason: Option<String>,
    /// The run on the dashboard.
    pub dashboard_link: Option<String>,
    /// This workflow run on GitHub.
    pub run_link: Option<String>,
    /// `i/n` when the suite is split across a matrix.
    pub shard: Option<String>,
    /// `working-directory` relative to the repository, to name scenario files.
    pub scenario_dir: String,
}

/// The totals line: `3 passed, 1 failed, 1 flaky · 0 LLM calls · $0.0000 · 3 cache hits · 4.20 s`.
pub fn totals_line(report: &RunReport) -> String {
    let t = &report.totals;
    let mut parts = vec![
        format!("{} passed", t.passed),
        format!("{} failed", t.failed),
    ];
    if t.flaky > 0 {
        parts.push(format!("{} flaky", t.flaky));
    }
    if t.skipped > 0 {
        parts.push(format!("{} skipped", t.skipped));
    }
    format!(
        "{} · {} LLM call{} · {} · {} cache hit{} · {}",
        parts.join(", "),
        t.llm_calls,
        if t.llm_calls == 1 { "" } else { "s" },
        usd(t.cost_micro_usd),
        t.cache_hits,
        if t.cache_hits == 1 { "" } else { "s" },
        duration(t.duration_ms)
    )
}

/// The Markdown page.
pub fn markdown(report: &RunReport, notes: &Notes) -> String {
    let mut md = String::new();
    let verdict = if report.totals.failed > 0 {
        "❌"
    } else {
        "✅"
    };
    let shard = notes
        .shard
        .as_deref()
        .map(|s| format!(" (shard {s})"))
        .unwrap_or_default();
    md.push_str(&format!("### {verdict} Windup{shard}\n\n"));
    md.push_str(&format!("**{}**\n\n", totals_line(report)));
    if let Some(reason) = &notes.require_cached_reason {
        md.push_str(&format!(
            "> [!NOTE]\n> Planning was off: {}. The run used only cached plans (as with `require-cached`); a scenario without one fails with `not_cached`.\n\n",
            cell(reason)
        ));
    }
    if report.scenarios.is_empty() {
        md.push_str("No scenario ran (an empty shard or filter).\n\n");
    } else {
        md.push_str("| scenario | status | plan | LLM calls | cost | time |\n");
        md.push_str("|---|---|---|--:|--:|--:|\n");
        for s in &report.scenarios {
            md.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                cell(&s.scenario_id),
                status(s),
                plan_label(s.cache),
                s.llm_calls,
                usd(s.cost_micro_usd),
                duration(s.duration_ms)
            ));
        }
        md.push('\n');
    }
    let stale: Vec<(&ScenarioResult, &str)> = report
        .scenarios
        .iter()
        .filter_map(|s| match (s.cache, s.failure_class) {
            (CacheOutcome::StaleReplanned, _) => Some((s, "re-planned")),
            (CacheOutcome::Hit, Some(c)) if c.invalidates_plan() => {
                Some((s, "not re-planned: see its failure below"))
            }
            _ => None,
        })
        .collect();
    if !stale.is_empty() {
        md.push_str("**Stale plans** (a cached plan that no longer fits the app; it is kept with its evidence in `e2e/.windup/cache/stale/`):\n\n");
        for (s, what) in stale {
            md.push_str(&format!("- `{}`: {what}\n", cell(&s.scenario_id)));
        }
        md.push('\n');
    }
    let failures: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|s| s.status == ScenarioStatus::Failed)
        .collect();
    if !failures.is_empty() {
        md.push_str("**Failures**\n\n");
        for s in failures {
            md.push_str(&format!(
                "- `{}` ({}): **{}**{}: {}\n",
                cell(&s.scenario_id),
                scenario_file(&notes.scenario_dir, &s.scenario_id),
                s.failure_class.map(|c| c.as_str()).unwrap_or("failed"),
                s.failed_action_id
                    .as_deref()
                    .map(|a| format!(" at `{}`", cell(a)))
                    .unwrap_or_default(),
                cell(s.message.as_deref().unwrap_or("no message"))
            ));
            if let Some(sg) = &s.suggestion {
                md.push_str(&format!(
                    "  - suggestion ({}): {} Fix: {}\n",
                    cell(&sg.by),
                    cell(&sg.summary),
                    cell(&sg.fix)
                ));
            }
        }
        md.push('\n');
    }
    let links: Vec<String> = [
        notes
            .dashboard_link
            .as_ref()
            .map(|l| format!("[dashboard run]({l})")),
        notes
            .run_link
            .as_ref()
            .map(|l| format!("[workflow run]({l})")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !links.is_empty() {
        md.push_str(&format!("{}\n\n", links.join(" · ")));
    }
    md
}

/// The sticky PR comment: the marker, then the page.
pub fn comment(report: &RunReport, notes: &Notes) -> String {
    format!("{COMMENT_MARKER}\n{}", markdown(report, notes))
}

/// `e2e/scenarios/<id>.yaml` under the working directory, relative to the repository.
pub fn scenario_file(scenario_dir: &str, id: &str) -> String {
    let dir = scenario_dir.trim_matches('/');
    if dir.is_empty() || dir == "." {
        format!("e2e/scenarios/{id}.yaml")
    } else {
        format!("{dir}/e2e/scenarios/{id}.yaml")
    }
}

fn status(s: &ScenarioResult) -> &'static str {
    match (s.status, s.flaky) {
        (ScenarioStatus::Passed, true) => "⚠️ flaky",
        (ScenarioStatus::Passed, false) => "✅ passed",
        (ScenarioStatus::Failed, _) => "❌ failed",
        (ScenarioStatus::Skipped, _) => "⏭️ skipped",
    }
}

/// Where a scenario's plan came from, in words.
pub fn plan_label(c: CacheOutcome) -> &'static str {
    match c {
        CacheOutcome::Hit => "cached",
        CacheOutcome::Miss => "planned",
        CacheOutcome::StaleReplanned => "stale, re-planned",
        CacheOutcome::None => "none",
    }
}

/// Text inside a table cell or a list line: one line, no table breaks, no markup from the page.
fn cell(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table_or_inject_markup() {
        assert_eq!(cell("a|b\n<img>"), "a\\|b &lt;img&gt;");
        assert_eq!(scenario_file(".", "x"), "e2e/scenarios/x.yaml");
        assert_eq!(scenario_file("web/", "x"), "web/e2e/scenarios/x.yaml");
    }
}
