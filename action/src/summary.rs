//! The job summary (`$GITHUB_STEP_SUMMARY`) and the sticky PR comment: one Markdown page from
//! the run report, rendered by the model's `markdown` module (which the dashboard's comment
//! uses too) with what only the Action knows.

use windup_model::RunReport;
use windup_model::markdown::{SummaryOptions, TotalsLayout, run_summary};

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
        }
    }
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
