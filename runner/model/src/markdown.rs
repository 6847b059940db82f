//! A run as GitHub Markdown: the Action's job summary and sticky PR comment, and the
//! dashboard's sticky PR comment, all from [`run_summary`]. It lives here, beside the report
//! type, because both the Action (which links the engine) and the dashboard (which must not)
//! render it. Pure functions: no I/O.
//!
//! Everything taken from a report goes through [`cell`] (or [`code`] inside a code span): a
//! scenario id, message or suggestion comes from a page or a model and must not break a table
//! line or bring its own HTML into a pull request.

use crate::money::usd;
use crate::report::{CacheOutcome, RunReport, ScenarioResult, ScenarioStatus, Totals};

/// What differs between the pages rendered from runs.
#[derive(Debug, Clone, Default)]
pub struct SummaryOptions {
    /// A hidden first line marking a sticky PR comment, so a later run updates that comment
    /// instead of adding one.
    pub marker: Option<String>,
    /// `i/n` when the page covers one shard of a matrix. Without it, a page over several
    /// reports says how many shards it sums.
    pub shard: Option<String>,
    /// How the totals under the heading are laid out.
    pub totals: TotalsLayout,
    /// Why planning was off (no provider key: a fork's pull request, say); a code span in it
    /// stays one.
    pub planning_off: Option<String>,
    /// The `working-directory` relative to the repository, to name a failing scenario's file;
    /// `None` names no file.
    pub scenario_dir: Option<String>,
    /// The run on the dashboard.
    pub dashboard_link: Option<String>,
    /// The workflow run on GitHub.
    pub run_link: Option<String>,
    /// Plans healed in this run, each offered as a change to its committed file (the
    /// Action's page; the dashboard has no checkout to read them from).
    pub healed_files: Vec<HealedFile>,
}

/// A plan healed in a run, offered as a change to a file of the repository: a machine-made
/// plan's cache file, or (for a plan a person wrote or accepted) its proposal, which only
/// `windup accept` adopts.
#[derive(Debug, Clone, Default)]
pub struct HealedFile {
    /// The scenario.
    pub scenario_id: String,
    /// The file, relative to the repository.
    pub path: String,
    /// The project's folder, relative to the repository (`.` for its root).
    pub project_dir: String,
    /// The file's new text.
    pub text: String,
    /// The healed plan is a proposal: the plan it would replace is a person's.
    pub proposal: bool,
    /// What the heal changed, in one line.
    pub diff: String,
}

/// How the totals are shown under the heading.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TotalsLayout {
    /// One bold line: counts, LLM calls, cost, cache hits and time (see [`totals_line`]).
    #[default]
    Line,
    /// A one-row table: counts, LLM calls, cost, cache hits out of scenarios, and stale plans
    /// re-planned; no time, as the shards of a workflow run overlap.
    Table,
}

/// The page: heading, totals, the planning note, a line per scenario, stale plans, failures
/// with their suggestions, and links. Several reports (the shards of one workflow run) are
/// summed as one run.
pub fn run_summary(reports: &[RunReport], opts: &SummaryOptions) -> String {
    let totals = sum(reports);
    let scenarios: Vec<&ScenarioResult> = reports.iter().flat_map(|r| &r.scenarios).collect();
    let mut md = String::new();
    if let Some(marker) = &opts.marker {
        md.push_str(&format!("{marker}\n"));
    }
    md.push_str(&heading(&totals, reports.len(), opts.shard.as_deref()));
    match opts.totals {
        TotalsLayout::Line => md.push_str(&format!("**{}**\n\n", totals_line(&totals))),
        TotalsLayout::Table => md.push_str(&totals_table(&totals, &scenarios)),
    }
    if let Some(reason) = &opts.planning_off {
        md.push_str(&format!(
            "> [!NOTE]\n> Planning was off: {}. The run used only cached plans (as with `require-cached`); a scenario without one fails with `not_cached`.\n\n",
            cell(reason)
        ));
    }
    md.push_str(&scenario_table(&scenarios));
    md.push_str(&stale_plans(&scenarios));
    md.push_str(&proposals(&scenarios));
    md.push_str(&healed_files(&opts.healed_files));
    md.push_str(&failures(&scenarios, opts.scenario_dir.as_deref()));
    for r in reports {
        md.push_str(&debrief(r));
    }
    let links: Vec<String> = [
        opts.dashboard_link
            .as_ref()
            .map(|l| format!("[dashboard run]({l})")),
        opts.run_link
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

/// The totals in one line: `3 passed, 1 failed, 1 flaky · 0 LLM calls · $0.0000 · 3 cache
/// hits · 4.20 s`.
pub fn totals_line(t: &Totals) -> String {
    let mut parts = vec![
        format!("{} passed", t.passed),
        format!("{} failed", t.failed),
    ];
    if t.flaky > 0 {
        parts.push(format!("{} flaky", t.flaky));
    }
    if t.healed > 0 {
        parts.push(format!("{} healed", t.healed));
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

/// Where a scenario's plan came from, in words.
pub fn plan_label(c: CacheOutcome) -> &'static str {
    match c {
        CacheOutcome::Hit => "cached",
        CacheOutcome::HitChangedPage => "cached, page changed",
        CacheOutcome::Miss => "planned",
        CacheOutcome::StaleReplanned => "stale, re-planned",
        CacheOutcome::Healed => "healed, no LLM",
        CacheOutcome::None => "none",
    }
}

/// `e2e/scenarios/<id>.yaml` under the working directory, relative to the repository.
pub fn scenario_file(scenario_dir: &str, id: &str) -> String {
    project_file(scenario_dir, &format!("e2e/scenarios/{id}.yaml"))
}

/// `path`, relative to the project at `project_dir` (relative to the workspace, `.` for its
/// root), as relative to the workspace.
pub fn project_file(project_dir: &str, path: &str) -> String {
    match project_dir.trim_matches('/') {
        "" | "." => path.to_string(),
        dir => format!("{dir}/{path}"),
    }
}

/// Text inside a table cell or a list line: one line, no table breaks, no markup from the page.
pub fn cell(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace(['\r', '\n'], " ")
}

/// Text inside a code span: as [`cell`], and a backtick cannot close the span early.
pub fn code(s: &str) -> String {
    cell(s).replace('`', "'")
}

fn sum(reports: &[RunReport]) -> Totals {
    let mut t = Totals::default();
    for r in reports {
        let r = &r.totals;
        t.scenarios += r.scenarios;
        t.passed += r.passed;
        t.failed += r.failed;
        t.skipped += r.skipped;
        t.llm_calls += r.llm_calls;
        t.cost_micro_usd += r.cost_micro_usd;
        t.cache_hits += r.cache_hits;
        t.duration_ms += r.duration_ms;
        t.flaky += r.flaky;
        t.healed += r.healed;
    }
    t
}

/// `### ❌ Windup (shard 2/3): failures`, or `### ✅ Windup across 2 shards: all passed`.
fn heading(t: &Totals, reports: usize, shard: Option<&str>) -> String {
    let (icon, verdict) = if t.failed > 0 {
        ("❌", "failures")
    } else {
        ("✅", "all passed")
    };
    let scope = match shard {
        Some(s) => format!(" (shard {s})"),
        None if reports > 1 => format!(" across {reports} shards"),
        None => String::new(),
    };
    format!("### {icon} Windup{scope}: {verdict}\n\n")
}

fn totals_table(t: &Totals, scenarios: &[&ScenarioResult]) -> String {
    let stale = scenarios
        .iter()
        .filter(|s| s.cache == CacheOutcome::StaleReplanned)
        .count();
    format!(
        "| passed | failed | flaky | healed | LLM calls | cost | cache hits | stale plans re-planned |\n\
         |---|---|---|---|---|---|---|---|\n\
         | {} | {} | {} | {} | {} | {} | {} of {} | {stale} |\n\n",
        t.passed,
        t.failed,
        t.flaky,
        t.healed,
        t.llm_calls,
        usd(t.cost_micro_usd),
        t.cache_hits,
        t.scenarios,
    )
}

fn scenario_table(scenarios: &[&ScenarioResult]) -> String {
    if scenarios.is_empty() {
        return "No scenario ran (an empty shard or filter).\n\n".to_string();
    }
    let mut md = String::from("| scenario | status | plan | LLM calls | cost | time |\n");
    md.push_str("|---|---|---|--:|--:|--:|\n");
    for s in scenarios {
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            code(&s.scenario_id),
            status(s),
            plan_label(s.cache),
            s.llm_calls,
            usd(s.cost_micro_usd),
            duration(s.duration_ms)
        ));
    }
    md.push('\n');
    md
}

/// Plans that no longer fit the app: re-planned, or failed in a way that says so.
fn stale_plans(scenarios: &[&ScenarioResult]) -> String {
    let stale: Vec<String> = scenarios
        .iter()
        .filter_map(|s| {
            let what = match (s.cache, s.failure_class) {
                (CacheOutcome::StaleReplanned, _) => "re-planned".to_string(),
                (CacheOutcome::Healed, _) => match &s.heal {
                    Some(h) => format!("healed without an LLM: `{}`", code(&h.describe())),
                    None => "healed without an LLM".to_string(),
                },
                // A protected plan stays in place: its proposal is listed on its own.
                _ if s.proposal.is_some() => return None,
                (CacheOutcome::Hit, Some(c)) if c.invalidates_plan() => {
                    "not re-planned: see its failure below".to_string()
                }
                _ => return None,
            };
            Some(format!("- `{}`: {what}\n", code(&s.scenario_id)))
        })
        .collect();
    if stale.is_empty() {
        return String::new();
    }
    format!(
        "**Stale plans** (a cached plan that no longer fits the app; one made by a model is kept with its evidence in `e2e/.windup/cache/stale/`, one written or accepted by a person stays in the cache):\n\n{}\n",
        stale.concat()
    )
}

/// Steps of a proposal's diff shown at most; the file holds the rest.
const PROPOSAL_LINES: usize = 12;

/// Protected plans that failed and were kept, each with the verified plan proposed in its place
/// and the step diff, for a person to adopt with `windup accept`.
fn proposals(scenarios: &[&ScenarioResult]) -> String {
    let mut md = String::new();
    for s in scenarios {
        let Some(p) = &s.proposal else { continue };
        md.push_str(&format!(
            "- `{}`: {} (`{}`): {}; adopt it with `windup accept {}`\n",
            code(&s.scenario_id),
            match p.source {
                crate::report::ProposalSource::Planned => "re-planned",
                crate::report::ProposalSource::Healed => "healed without an LLM",
            },
            code(&p.file),
            cell(&p.diff.headline()),
            code(&s.scenario_id),
        ));
        let lines = p.diff.lines();
        for line in lines.iter().take(PROPOSAL_LINES) {
            md.push_str(&format!("  - `{}`\n", code(line)));
        }
        if lines.len() > PROPOSAL_LINES {
            md.push_str(&format!(
                "  - … and {} more in the file\n",
                lines.len() - PROPOSAL_LINES
            ));
        }
    }
    if md.is_empty() {
        return md;
    }
    format!(
        "**Proposals** (a plan written or accepted by a person is never replaced automatically: it stays in the cache, the scenario fails, and a verified plan is proposed beside it):\n\n{md}\n"
    )
}

/// The largest healed file shown; a larger one is named with how to heal it locally.
const MAX_HEALED_CHARS: usize = 60_000;

/// Each healed plan as a collapsed suggested change: what it changed, then one shell command,
/// run from the repository's root, that writes the file (and, for a proposal, adopts it with
/// `windup accept`). The file is inside a code fence longer than any run of backticks in it
/// and a here-document whose end line it does not hold, so a page's text cannot close either.
fn healed_files(files: &[HealedFile]) -> String {
    let mut md = String::new();
    for f in files {
        let (what, then) = if f.proposal {
            (
                "proposed plan",
                "the plan it would replace was written or accepted by a person, so it stays until this is accepted",
            )
        } else {
            (
                "healed plan",
                "commit the file it writes, or the heal is paid again on every run",
            )
        };
        md.push_str(&format!(
            "<details><summary>{what} for <code>{}</code>: <code>{}</code></summary>\n\n{}.\n\n",
            cell(&f.scenario_id),
            cell(&f.path),
            cell(&format!("{}; {then}", f.diff)),
        ));
        if f.text.chars().count() > MAX_HEALED_CHARS {
            md.push_str(&format!(
                "The file is too large to show here: `windup run {}` heals it in a checkout of this branch.\n\n</details>\n\n",
                code(&f.scenario_id)
            ));
            continue;
        }
        let mut end = "WINDUP_PLAN".to_string();
        while f.text.lines().any(|l| l == end) {
            end.push('_');
        }
        let mut command = String::new();
        if f.proposal
            && let Some((dir, _)) = f.path.rsplit_once('/')
        {
            command.push_str(&format!("mkdir -p {} && ", quoted(dir)));
        }
        command.push_str(&format!("cat > {} <<'{end}'", quoted(&f.path)));
        if f.proposal {
            command.push_str(&format!(
                " && windup accept {} --root {}",
                quoted(&f.scenario_id),
                quoted(&f.project_dir)
            ));
        }
        let fence = "`".repeat(longest_backtick_run(&f.text).max(2) + 1);
        let text = f.text.trim_end_matches('\n');
        md.push_str(&format!(
            "From the repository's root:\n\n{fence}sh\n{command}\n{text}\n{end}\n{fence}\n\n</details>\n\n"
        ));
    }
    if md.is_empty() {
        return md;
    }
    format!("**Healed plans** (a suggested change each; nothing is committed for you):\n\n{md}")
}

/// `s` in single quotes for a POSIX shell.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `` - `cart` (e2e/scenarios/cart.yaml): **selector_not_found at s2**: no visible match … ``
/// (the one reason line), then its evidence, the triage's verdict with its deciding fact, the
/// advice, and the suggestion if one was asked for.
fn failures(scenarios: &[&ScenarioResult], scenario_dir: Option<&str>) -> String {
    let mut md = String::new();
    for s in scenarios {
        let Some(r) = crate::reason::reason(s) else {
            continue;
        };
        let file = scenario_dir
            .map(|dir| format!(" ({})", cell(&scenario_file(dir, &s.scenario_id))))
            .unwrap_or_default();
        md.push_str(&format!(
            "- `{}`{file}: **{}**: {}\n",
            code(&s.scenario_id),
            cell(&r.head),
            cell(&r.sentence),
        ));
        if !r.evidence.is_empty() {
            md.push_str(&format!("  - Evidence: {}\n", cell(&r.evidence.join("; "))));
        }
        if let Some(t) = &r.triage {
            let (verdict, fact) = t.split_once(": ").unwrap_or((t, ""));
            let fact = if fact.is_empty() {
                String::new()
            } else {
                format!(": {}", cell(fact))
            };
            md.push_str(&format!("  - Triage: **{}**{fact}\n", cell(verdict)));
        }
        if let Some(a) = &r.advice {
            md.push_str(&format!("  - Advice: {}\n", cell(a)));
        }
        if let Some(sg) = &s.suggestion {
            md.push_str(&format!(
                "  - {} Suggested fix: {} ({})\n",
                cell(&sg.summary),
                cell(&sg.fix),
                cell(&sg.by)
            ));
        }
    }
    if md.is_empty() {
        return md;
    }
    format!("**Failures**\n\n{md}\n")
}

/// The run's debrief (`--debrief`), when it has one: what the failures share, what to look at
/// first, notes; or why none was made. A shard's says which shard.
fn debrief(r: &RunReport) -> String {
    let Some(d) = &r.debrief else {
        return String::new();
    };
    let shard =
        r.ci.as_ref()
            .and_then(|c| c.shard.as_deref())
            .map(|s| format!(" (shard {})", cell(s)))
            .unwrap_or_default();
    if let Some(why) = &d.not_made {
        return format!("**Debrief**{shard}: not made: {}\n\n", cell(why));
    }
    let by =
        d.by.as_deref()
            .map(|b| format!(" by {}", cell(b)))
            .unwrap_or_default();
    let mut md = format!("**Debrief**{shard}{by} (advice; it changes no verdict):\n\n");
    if !d.shared_cause.is_empty() {
        md.push_str(&format!("- Shared cause: {}\n", cell(&d.shared_cause)));
    }
    if !d.look_first.is_empty() {
        let ids: Vec<String> = d
            .look_first
            .iter()
            .map(|i| format!("`{}`", code(i)))
            .collect();
        md.push_str(&format!("- Look first at: {}\n", ids.join(", ")));
    }
    if !d.notes.is_empty() {
        md.push_str(&format!("- Notes: {}\n", cell(&d.notes)));
    }
    md.push('\n');
    md
}

fn status(s: &ScenarioResult) -> &'static str {
    if s.status == ScenarioStatus::Passed && s.heal.is_some() {
        return "🩹 healed";
    }
    match (s.status, s.flaky) {
        (ScenarioStatus::Passed, true) => "⚠️ flaky",
        (ScenarioStatus::Passed, false) => "✅ passed",
        (ScenarioStatus::Failed, _) => "❌ failed",
        (ScenarioStatus::Skipped, _) => "⏭️ skipped",
    }
}

/// Milliseconds as `850 ms` or `12.34 s`: one form for every report (Markdown, HTML, terminal).
pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{}.{:02} s", ms / 1000, ms % 1000 / 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{FailureClass, Suggestion};

    #[test]
    fn cells_cannot_break_the_table_or_inject_markup() {
        assert_eq!(cell("a|b\n<img>"), "a\\|b &lt;img&gt;");
        assert_eq!(scenario_file(".", "x"), "e2e/scenarios/x.yaml");
        assert_eq!(scenario_file("web/", "x"), "web/e2e/scenarios/x.yaml");
        assert_eq!(code("a`b|c"), "a'b\\|c");
    }

    fn scenario(id: &str, status: ScenarioStatus, flaky: bool) -> ScenarioResult {
        serde_json::from_value(serde_json::json!({
            "scenario_id": id, "status": status, "flaky": flaky, "cache": "hit",
            "llm_calls": 0, "cost_micro_usd": 0, "duration_ms": 1200, "actions": []
        }))
        .unwrap()
    }

    fn run(scenarios: Vec<ScenarioResult>) -> RunReport {
        let count = |st| scenarios.iter().filter(|s| s.status == st).count() as u32;
        let totals = Totals {
            scenarios: scenarios.len() as u32,
            passed: count(ScenarioStatus::Passed),
            failed: count(ScenarioStatus::Failed),
            flaky: scenarios.iter().filter(|s| s.flaky).count() as u32,
            cost_micro_usd: 12_345,
            llm_calls: 1,
            cache_hits: scenarios.len() as u32,
            duration_ms: 4_200,
            ..Totals::default()
        };
        serde_json::from_value(serde_json::json!({
            "report_version": "0.2", "run_id": "r-1", "windup_version": "0.1.0",
            "started_at": "2026-11-29T10:00:00Z", "finished_at": "2026-11-29T10:01:00Z",
            "totals": totals, "scenarios": scenarios
        }))
        .unwrap()
    }

    #[test]
    fn a_pass_fail_flaky_run_renders_every_section_with_escaped_cells() {
        let mut failed = scenario("check|out", ScenarioStatus::Failed, false);
        failed.failure_class = Some(FailureClass::SelectorNotFound);
        failed.failed_action_id = Some("s2".into());
        failed.message = Some("no match for <img src=x onerror=alert(1)>\nsecond line".into());
        failed.suggestion = Some(Suggestion {
            summary: "Renamed | moved.".into(),
            fix: "Say \"Store\".".into(),
            by: "model".into(),
        });
        let report = run(vec![
            scenario("sign-in", ScenarioStatus::Passed, false),
            scenario("search", ScenarioStatus::Passed, true),
            failed,
        ]);
        let md = run_summary(
            &[report],
            &SummaryOptions {
                marker: Some("<!-- windup -->".into()),
                shard: Some("2/3".into()),
                scenario_dir: Some("web".into()),
                run_link: Some("https://github.test/runs/1".into()),
                ..SummaryOptions::default()
            },
        );
        let expected = "<!-- windup -->
### ❌ Windup (shard 2/3): failures

**2 passed, 1 failed, 1 flaky · 1 LLM call · $0.0124 · 3 cache hits · 4.20 s**

| scenario | status | plan | LLM calls | cost | time |
|---|---|---|--:|--:|--:|
| `sign-in` | ✅ passed | cached | 0 | $0.0000 | 1.20 s |
| `search` | ⚠️ flaky | cached | 0 | $0.0000 | 1.20 s |
| `check\\|out` | ❌ failed | cached | 0 | $0.0000 | 1.20 s |

**Stale plans** (a cached plan that no longer fits the app; one made by a model is kept with its evidence in `e2e/.windup/cache/stale/`, one written or accepted by a person stays in the cache):

- `check\\|out`: not re-planned: see its failure below

**Failures**

- `check\\|out` (web/e2e/scenarios/check\\|out.yaml): **selector_not_found at s2**: no match for &lt;img src=x onerror=alert(1)&gt;
  - Renamed \\| moved. Suggested fix: Say \"Store\". (model)

[workflow run](https://github.test/runs/1)

";
        assert_eq!(md, expected);
    }

    #[test]
    fn shards_are_summed_into_one_totals_table() {
        let green = run(vec![scenario("a", ScenarioStatus::Passed, false)]);
        let mut replanned = scenario("b", ScenarioStatus::Passed, false);
        replanned.cache = CacheOutcome::StaleReplanned;
        let md = run_summary(
            &[green.clone(), run(vec![replanned])],
            &SummaryOptions {
                totals: TotalsLayout::Table,
                dashboard_link: Some("http://dash.test/p/x/runs/r-1".into()),
                ..SummaryOptions::default()
            },
        );
        assert!(
            md.starts_with("### ✅ Windup across 2 shards: all passed\n"),
            "{md}"
        );
        assert!(
            md.contains("| 2 | 0 | 0 | 0 | 2 | $0.0247 | 2 of 2 | 1 |"),
            "{md}"
        );
        assert!(md.contains("- `b`: re-planned"), "{md}");
        assert!(!md.contains("**Failures**"), "{md}");
        assert!(md.ends_with("[dashboard run](http://dash.test/p/x/runs/r-1)\n\n"));
        let empty = run_summary(&[run(vec![])], &SummaryOptions::default());
        assert!(empty.contains("No scenario ran"), "{empty}");
    }

    #[test]
    fn a_proposal_is_listed_with_its_diff_and_how_to_adopt_it() {
        let mut failed = scenario("todos", ScenarioStatus::Failed, false);
        failed.failure_class = Some(FailureClass::SelectorNotFound);
        failed.failed_action_id = Some("a1".into());
        failed.message = Some("the plan is kept; a proposal was written".into());
        failed.proposal = Some(crate::report::ProposedPlan {
            file: "e2e/.windup/cache/proposals/todos.json".into(),
            source: crate::report::ProposalSource::Planned,
            diff: crate::diff::StepDiff {
                old_steps: 2,
                new_steps: 3,
                changed: vec![crate::diff::ChangedStep {
                    from: "fill placeholder=\"What needs to be done?\" value=\"Buy milk\"".into(),
                    to: "fill placeholder=\"Add a task\" value=\"Buy milk\"".into(),
                }],
                removed: Vec::new(),
                added: vec!["click text=\"<b>`x`</b>\"".into()],
            },
        });
        let md = run_summary(&[run(vec![failed])], &SummaryOptions::default());
        let expected = "**Proposals** (a plan written or accepted by a person is never replaced automatically: it stays in the cache, the scenario fails, and a verified plan is proposed beside it):

- `todos`: re-planned (`e2e/.windup/cache/proposals/todos.json`): 2 steps \u{2192} 3 steps: 1 changed, 1 added; adopt it with `windup accept todos`
  - `~ fill placeholder=\"What needs to be done?\" value=\"Buy milk\" \u{2192} fill placeholder=\"Add a task\" value=\"Buy milk\"`
  - `+ click text=\"&lt;b&gt;'x'&lt;/b&gt;\"`

**Failures**
";
        assert!(md.contains(expected), "{md}");
        assert!(
            !md.contains("**Stale plans**"),
            "the plan stayed in place: {md}"
        );
    }

    #[test]
    fn a_healed_file_cannot_close_its_fence_or_its_here_document() {
        let hostile = HealedFile {
            scenario_id: "x".into(),
            path: "web/e2e/.windup/cache/x.json".into(),
            project_dir: "web".into(),
            text: "{\"a\": \"````\"}\nWINDUP_PLAN\n".into(),
            proposal: false,
            diff: "a1: <b>old</b> -> new".into(),
        };
        let md = healed_files(&[hostile]);
        assert!(md.contains("a1: &lt;b&gt;old&lt;/b&gt; -&gt; new"), "{md}");
        assert!(
            md.contains("`````sh\ncat > 'web/e2e/.windup/cache/x.json' <<'WINDUP_PLAN_'\n"),
            "{md}"
        );
        assert!(md.contains("\nWINDUP_PLAN\nWINDUP_PLAN_\n`````\n"), "{md}");
        assert_eq!(quoted("it's"), "'it'\\''s'");
    }

    #[test]
    fn a_debrief_is_shown_escaped_or_says_why_there_is_none() {
        let mut report = run(vec![scenario("a", ScenarioStatus::Failed, false)]);
        report.debrief = Some(crate::report::Debrief {
            shared_cause: "Both <b>lost</b> the | sign-in.".into(),
            look_first: vec!["a`b".into(), "c".into()],
            notes: "Check the session.".into(),
            by: Some("fake/gpt-4.1-mini".into()),
            not_made: None,
        });
        let md = run_summary(std::slice::from_ref(&report), &SummaryOptions::default());
        assert!(
            md.contains(
                "**Debrief** by fake/gpt-4.1-mini (advice; it changes no verdict):\n\n\
                 - Shared cause: Both &lt;b&gt;lost&lt;/b&gt; the \\| sign-in.\n\
                 - Look first at: `a'b`, `c`\n- Notes: Check the session.\n\n"
            ),
            "{md}"
        );
        report.debrief = Some(crate::report::Debrief {
            not_made: Some("no LLM call was made: the budget".into()),
            ..Default::default()
        });
        let md = run_summary(&[report], &SummaryOptions::default());
        assert!(
            md.contains("**Debrief**: not made: no LLM call was made: the budget\n"),
            "{md}"
        );
    }
}
