//! The job summary (`$GITHUB_STEP_SUMMARY`) and the sticky PR comment: one Markdown page from
//! the run report, rendered by the model's `markdown` module (which the dashboard's comment
//! uses too) with what only the Action knows.

use windup_model::RunReport;
use windup_model::markdown::{HealedFile, SummaryOptions, TotalsLayout, run_summary};

pub use windup_model::markdown::{plan_label, scenario_file};

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
    /// Plans healed in the run, offered as changes to their files.
    pub healed_files: Vec<HealedFile>,
}

impl Notes {
    fn options(&self, marker: Option<&str>) -> SummaryOptions {
        SummaryOptions {
            marker: marker.map(str::to_string),
            shard: self.shard.clone(),
            totals: TotalsLayout::Line,
            planning_off: self.require_cached_reason.clone(),
            scenario_dir: Some(self.scenario_dir.clone()),
            dashboard_link: self.dashboard_link.clone(),
            run_link: self.run_link.clone(),
            healed_files: self.healed_files.clone(),
        }
    }
}

/// The plans the run healed, read from the files it wrote in the project at `root`: a
/// machine-made plan's cache file, or the proposal made for a person's plan.
pub fn healed_files(
    report: &RunReport,
    root: &std::path::Path,
    scenario_dir: &str,
) -> Vec<HealedFile> {
    report
        .scenarios
        .iter()
        .filter_map(|s| {
            // A person's plan is never healed in place: its heal (or re-plan) is a proposal.
            let (file, proposal, diff) = match (&s.proposal, &s.heal) {
                (Some(p), _) => (p.file.clone(), true, p.diff.headline()),
                (None, Some(heal)) => (
                    format!("e2e/.windup/cache/{}.json", s.scenario_id),
                    false,
                    heal.describe(),
                ),
                (None, None) => return None,
            };
            let text = std::fs::read_to_string(root.join(&file)).ok()?;
            Some(HealedFile {
                scenario_id: s.scenario_id.clone(),
                path: windup_model::markdown::project_file(scenario_dir, &file),
                project_dir: if scenario_dir.is_empty() {
                    ".".into()
                } else {
                    scenario_dir.to_string()
                },
                text,
                proposal,
                diff,
            })
        })
        .collect()
}

/// The totals line: `3 passed, 1 failed, 1 flaky · 0 LLM calls · $0.0000 · 3 cache hits · 4.20 s`.
pub fn totals_line(report: &RunReport) -> String {
    windup_model::markdown::totals_line(&report.totals)
}

/// The Markdown page.
pub fn markdown(report: &RunReport, notes: &Notes) -> String {
    run_summary(std::slice::from_ref(report), &notes.options(None))
}

/// The sticky PR comment: the marker, then the page.
pub fn comment(report: &RunReport, notes: &Notes) -> String {
    run_summary(
        std::slice::from_ref(report),
        &notes.options(Some(COMMENT_MARKER)),
    )
}
